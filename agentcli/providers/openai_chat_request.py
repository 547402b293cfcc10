"""Our conversation as a Chat Completions request body.

Each of our user messages may hold tool results and text; Chat Completions
wants each result as its own `tool` message right after the assistant
message that called it, then the rest as a user message. Text-only content
is sent as a plain string, which every local server accepts (several reject
content arrays). Only the fields every OpenAI-compatible server knows are
sent: strict servers refuse the rest.
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


def chat_body(request: ModelRequest, max_tokens: int | None) -> dict[str, Any]:
    """The request's body; `max_tokens` only when the model's settings give one (a
    local server refuses more than its context holds, so by default it decides)."""
    messages: list[dict[str, Any]] = []
    system = system_text(request.system)
    if system:
        messages.append({"role": "system", "content": system})
    for message in request.messages:
        if message["role"] == "assistant":
            messages += _assistant(message["content"])
        else:
            messages += _user(message["content"])
    body: dict[str, Any] = {
        "model": request.model,
        "messages": messages,
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    tools = function_tools(request.tools)
    if tools:
        body["tools"] = [{"type": "function", "function": tool} for tool in tools]
    if max_tokens is not None:
        body["max_tokens"] = max_tokens
    return body


def _user(content: str | list[Block]) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"role": "user", "content": content}]
    out: list[dict[str, Any]] = [
        {"role": "tool", "tool_call_id": b["tool_use_id"], "content": result_text(b)}
        for b in content
        if is_tool_result(b)
    ]
    parts = [part for b in content if (part := _user_part(b)) is not None]
    if parts:
        texts = [p["text"] for p in parts if p["type"] == "text"]
        plain = len(texts) == len(parts)
        out.append({"role": "user", "content": "\n\n".join(texts) if plain else parts})
    return out


def _user_part(block: Block) -> dict[str, Any] | None:
    if is_text(block) and block.get("text"):
        return {"type": "text", "text": block["text"]}
    if is_image(block) and (url := image_url(block)) is not None:
        return {"type": "image_url", "image_url": {"url": url}}
    if block.get("type") == "document":
        return {"type": "text", "text": "[a document was attached; this model API takes none]"}
    return None


def _assistant(content: str | list[Block]) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"role": "assistant", "content": content}]
    text = "".join(b.get("text", "") for b in content if is_text(b))
    calls = [
        {
            "id": b["id"],
            "type": "function",
            "function": {"name": b["name"], "arguments": arguments_json(b)},
        }
        for b in content
        if is_tool_use(b)
    ]
    if not text and not calls:
        return []  # only thinking or server-tool blocks: nothing this API understands
    message: dict[str, Any] = {"role": "assistant", "content": text or None}
    if calls:
        message["tool_calls"] = calls
    return [message]
