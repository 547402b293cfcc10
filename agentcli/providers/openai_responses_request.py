"""Our conversation as an OpenAI Responses API request body.

The Responses API takes a list of input items: messages, `function_call`
items (a call the model made) and `function_call_output` items (its result),
paired by `call_id`. Nothing is stored on OpenAI's side (`store: false`):
every request carries the whole conversation, as with the Messages API.
"""

from __future__ import annotations

from typing import Any

from agentcli.core.messages import Block, is_image, is_text, is_tool_result, is_tool_use
from agentcli.providers.base import ModelRequest
from agentcli.providers.openai_shared import (
    arguments_json,
    function_tools,
    image_url,
    result_text,
    system_text,
)


def responses_body(request: ModelRequest, max_tokens: int | None) -> dict[str, Any]:
    """The request's body; `max_output_tokens` only when the model's settings give one."""
    items: list[dict[str, Any]] = []
    for message in request.messages:
        content = message["content"]
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        if message["role"] == "assistant":
            items += _assistant(content)
        else:
            items += _user(content)
    body: dict[str, Any] = {
        "model": request.model,
        "input": items,
        "stream": True,
        "store": False,
    }
    system = system_text(request.system)
    if system:
        body["instructions"] = system
    tools = function_tools(request.tools)
    if tools:
        body["tools"] = [{"type": "function", **tool, "strict": False} for tool in tools]
    if max_tokens is not None:
        body["max_output_tokens"] = max_tokens
    return body


def _user(content: list[Block]) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = [
        {"type": "function_call_output", "call_id": b["tool_use_id"], "output": result_text(b)}
        for b in content
        if is_tool_result(b)
    ]
    parts: list[dict[str, Any]] = []
    for block in content:
        if is_text(block) and block.get("text"):
            parts.append({"type": "input_text", "text": block["text"]})
        elif is_image(block) and (url := image_url(block)) is not None:
            parts.append({"type": "input_image", "image_url": url})
    if parts:
        items.append({"type": "message", "role": "user", "content": parts})
    return items


def _assistant(content: list[Block]) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    for block in content:
        if is_text(block) and block.get("text"):
            items.append({"type": "message", "role": "assistant", "content": block["text"]})
        elif is_tool_use(block):
            items.append(
                {
                    "type": "function_call",
                    "call_id": block["id"],
                    "name": block["name"],
                    "arguments": arguments_json(block),
                }
            )
    return items
