"""Message helpers: shaping the conversation into a request the API accepts.

The conversation list keeps one entry per thing that happened (a prompt, the
tool results, an interruption marker), which is what the transcript wants.
The API wants alternating roles with tool results first in a user message;
`normalize_for_api()` makes that view without changing the conversation.
"""

from __future__ import annotations

from typing import Any

# A message of the Messages API as JSON: {"role": "user" | "assistant", "content": ...}.
# The conversation, the transcript and every request hold messages in this shape.
Message = dict[str, Any]
# One content block of a message, or of the system prompt, as JSON.
Block = dict[str, Any]

# The result of a call stopped by an interruption: in the live loop, and for a call
# a transcript recorded without its result (the process died while it ran).
INTERRUPTED_MESSAGE = "Interrupted by the user: this tool call was stopped before it finished."


def user_message(content: str | list[dict[str, Any]]) -> dict[str, Any]:
    if isinstance(content, str):
        content = [{"type": "text", "text": content}]
    return {"role": "user", "content": content}


def as_blocks(content: str | list[dict[str, Any]]) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}] if content else []
    return list(content)


def normalize_for_api(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Merge consecutive user messages, tool results first; drop empty ones."""
    out: list[dict[str, Any]] = []
    for message in messages:
        blocks = as_blocks(message["content"])
        if not blocks:
            continue
        if out and out[-1]["role"] == message["role"] == "user":
            merged = out[-1]["content"] + blocks
            results = [b for b in merged if b.get("type") == "tool_result"]
            others = [b for b in merged if b.get("type") != "tool_result"]
            out[-1] = {"role": "user", "content": results + others}
        else:
            out.append({"role": message["role"], "content": blocks})
    return out


def text_of(message: dict[str, Any]) -> str:
    """The plain text of a message (its text blocks joined)."""
    content = message.get("content")
    if isinstance(content, str):
        return content
    return "".join(b.get("text", "") for b in content or [] if b.get("type") == "text")


def tool_uses(message: dict[str, Any]) -> list[dict[str, Any]]:
    content = message.get("content")
    if not isinstance(content, list):
        return []
    return [b for b in content if b.get("type") == "tool_use"]


def answer_dangling_tool_uses(
    messages: list[dict[str, Any]], result_text: str, marker: str
) -> dict[str, Any] | None:
    """If the conversation ends with tool_use blocks nobody answered, answer them.

    Happens when whoever consumed the loop stopped listening mid-turn. Each call
    gets an error result and the marker says why; returns the message added.
    """
    if not messages or messages[-1]["role"] != "assistant":
        return None
    calls = tool_uses(messages[-1])
    if not calls:
        return None
    content: list[dict[str, Any]] = [
        {"type": "tool_result", "tool_use_id": c["id"], "content": result_text, "is_error": True}
        for c in calls
    ]
    content.append({"type": "text", "text": marker})
    message = {"role": "user", "content": content}
    messages.append(message)
    return message
