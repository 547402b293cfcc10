"""What the two OpenAI translations share: reading our Anthropic-shaped blocks.

The conversation, the system prompt and the tool schemas are kept in the
Messages API's shape everywhere (the engine, transcripts, compaction). An
OpenAI-style request is made from them here, leaving out what only Anthropic
understands: `cache_control` breakpoints, thinking blocks (their signatures
mean nothing elsewhere) and server tools (run by Anthropic's servers).
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Mapping
from typing import Any

from agentcli.core.messages import (
    ImageBlock,
    SystemBlock,
    ToolResultBlock,
    ToolUseBlock,
    is_text,
)
from agentcli.core.usage import Usage
from agentcli.providers.schema_refs import inline_refs
from agentcli.providers.tool_input import arguments_text, parse_tool_input

# Ids of tool calls must suit every API the conversation may go to next
# (the Messages API takes `^[a-zA-Z0-9_-]+$`).
_ID_UNSAFE = re.compile(r"[^a-zA-Z0-9_-]")


def system_text(system: list[SystemBlock]) -> str:
    """The system prompt's text blocks as one string."""
    return "\n\n".join(b["text"] for b in system if b.get("type") == "text" and b.get("text"))


def function_tools(tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Our tools as (name, description, JSON schema); server tools are left out. The
    schemas go without `$ref` (schema_refs.py): many such servers do not resolve them."""
    return [
        {
            "name": tool["name"],
            "description": tool.get("description", ""),
            "parameters": inline_refs(tool["input_schema"]),
        }
        for tool in tools
        if "input_schema" in tool
    ]


def result_text(block: ToolResultBlock) -> str:
    """A tool_result's content as text (an image in it is named, not sent)."""
    content = block.get("content", "")
    if isinstance(content, str):
        text = content
    else:
        parts = []
        for part in content:
            if is_text(part):
                parts.append(part.get("text", ""))
            elif part.get("type") == "image":
                parts.append("[image omitted: this model API takes no images in tool results]")
        text = "\n".join(parts)
    if block.get("is_error") and not text.startswith("Error"):
        return f"Error: {text}"
    return text


def image_url(block: ImageBlock) -> str | None:
    """An image block's source as a URL (a data: URL for base64 images)."""
    source: Mapping[str, Any] = block.get("source", {})
    if source.get("type") == "base64":
        return f"data:{source.get('media_type', 'image/png')};base64,{source.get('data', '')}"
    if source.get("type") == "url":
        return str(source.get("url"))
    return None


def arguments_json(block: ToolUseBlock) -> str:
    """A tool_use block's input as the arguments string a later request replays: always
    one JSON object, `{}` for input the model wrote that was not one (its error result
    says what was wrong), so strict servers take the history back."""
    return arguments_text(block.get("input", {}))


def tool_use_block(call_id: str | None, name: str, arguments: str) -> ToolUseBlock:
    """A tool call as our tool_use block: a safe id, the arguments parsed once."""
    safe = _ID_UNSAFE.sub("_", call_id or "") or f"call_{uuid.uuid4().hex[:24]}"
    return {"type": "tool_use", "id": safe, "name": name, "input": parse_tool_input(arguments)}


def usage_from(prompt: int, output: int, cached: int) -> Usage:
    """Our usage from OpenAI's counts, where cached tokens are part of the prompt's."""
    cached = min(max(cached, 0), prompt)
    return Usage(input_tokens=prompt - cached, output_tokens=output, cache_read_input_tokens=cached)


def as_int(value: Any) -> int:
    return int(value) if isinstance(value, int | float) else 0
