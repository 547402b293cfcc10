"""Reject malformed Messages requests the way the real API does (HTTP 400).

An agent that builds an invalid conversation (a tool_use without its tool_result, an
empty text block, ...) works against a lenient mock and fails in production. These
checks mirror the API's rules and, as far as known, its messages, so such bugs fail
in tests. Each returns the error message, or None when the request is acceptable.

Consecutive messages with the same role are accepted (the API merges them), so the
tool_use/tool_result pairing is checked on the merged conversation.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from .images import check_images
from .server_tools import check_server_tools
from .thinking_rules import check_thinking

MAX_CACHE_BREAKPOINTS = 4
_TOOL_USE_ID = re.compile(r"^[a-zA-Z0-9_-]+$")
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def validate_request(body: Any, *, count_tokens: bool = False) -> str | None:
    """The first problem the API would report for this request body, or None."""
    if not isinstance(body, dict):
        return "Input should be a valid dictionary"
    for check in (
        lambda: _check_unicode(body),
        lambda: _check_top_level(body, count_tokens),
        lambda: _check_message_shapes(body["messages"]),
        lambda: check_images(body["messages"]),
        lambda: _check_non_empty(body),
        lambda: _check_tools(body.get("tools")),
        lambda: _check_cache_breakpoints(body),
        lambda: _check_tool_pairing(body["messages"]),
        lambda: check_server_tools(body),
        lambda: None if count_tokens else check_thinking(body),
    ):
        problem = check()
        if problem:
            return problem
    return None


def _check_unicode(body: Any) -> str | None:
    """Half a surrogate pair (`\\ud800` alone) is not text: the API's JSON parser refuses it."""
    stack = [body]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if _LONE_SURROGATE.search(item):
                return "The request body is not valid JSON: no low surrogate in string"
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return None


def _check_top_level(body: dict[str, Any], count_tokens: bool) -> str | None:
    if "model" not in body:
        return "model: Field required"
    if not isinstance(body["model"], str):
        return "model: Input should be a valid string"
    if not count_tokens:
        if "max_tokens" not in body:
            return "max_tokens: Field required"
        max_tokens = body["max_tokens"]
        if not isinstance(max_tokens, int) or isinstance(max_tokens, bool):
            return "max_tokens: Input should be a valid integer"
        if max_tokens < 1:
            return "max_tokens: Input should be greater than or equal to 1"
    if "messages" not in body:
        return "messages: Field required"
    if not isinstance(body["messages"], list):
        return "messages: Input should be a valid list"
    if not body["messages"]:
        return "messages: at least one message is required"
    return None


def _check_message_shapes(messages: list[Any]) -> str | None:
    for i, message in enumerate(messages):
        if not isinstance(message, dict):
            return f"messages.{i}: Input should be a valid dictionary"
        if message.get("role") not in ("user", "assistant"):
            return f"messages.{i}.role: Input should be 'user' or 'assistant'"
        if "content" not in message:
            return f"messages.{i}.content: Field required"
        content = message["content"]
        if isinstance(content, str):
            continue
        if not isinstance(content, list):
            return f"messages.{i}.content: Input should be a valid list"
        for j, block in enumerate(content):
            if not isinstance(block, dict) or not isinstance(block.get("type"), str):
                return f"messages.{i}.content.{j}: Input should be a valid dictionary"
            if block["type"] == "tool_use" and not _TOOL_USE_ID.match(str(block.get("id", ""))):
                return (
                    f"messages.{i}.content.{j}.tool_use.id: "
                    "String should match pattern '^[a-zA-Z0-9_-]+$'"
                )
            if block["type"] == "tool_use" and not isinstance(block.get("input"), dict):
                return (
                    f"messages.{i}.content.{j}.tool_use.input: Input should be a valid dictionary"
                )
    if messages[0]["role"] != "user":
        return 'messages: first message must use the "user" role'
    return None


def _text_blocks(blocks: list[Any]) -> list[dict[str, Any]]:
    """Text blocks at the top level and inside tool_result content."""
    found: list[dict[str, Any]] = []
    for block in blocks:
        if not isinstance(block, dict):
            continue
        if block.get("type") == "text":
            found.append(block)
        elif block.get("type") == "tool_result" and isinstance(block.get("content"), list):
            found.extend(_text_blocks(block["content"]))
    return found


def _text_problem(blocks: list[Any], where: str) -> str | None:
    for block in _text_blocks(blocks):
        value = block.get("text")
        if not isinstance(value, str) or value == "":
            return f"{where}: text content blocks must be non-empty"
        if not value.strip():
            return f"{where}: text content blocks must contain non-whitespace text"
    return None


def _check_non_empty(body: dict[str, Any]) -> str | None:
    messages = body["messages"]
    last = len(messages) - 1
    for i, message in enumerate(messages):
        content = message["content"]
        if content in ("", []) and not (i == last and message["role"] == "assistant"):
            return (
                f"messages.{i}: all messages must have non-empty content "
                "except for the optional final assistant message"
            )
        if isinstance(content, list):
            problem = _text_problem(content, "messages")
            if problem:
                return problem
    system = body.get("system")
    if isinstance(system, list):
        return _text_problem(system, "system")
    return None


def _check_tools(tools: Any) -> str | None:
    if tools is None:
        return None
    if not isinstance(tools, list):
        return "tools: Input should be a valid list"
    names = [tool.get("name") for tool in tools if isinstance(tool, dict)]
    if len(names) != len(set(names)):
        return "tools: Tool names must be unique."
    return None


def _count_cache_control(blocks: Any) -> int:
    if not isinstance(blocks, list):
        return 0
    count = 0
    for block in blocks:
        if not isinstance(block, dict):
            continue
        if block.get("cache_control") is not None:
            count += 1
        if block.get("type") == "tool_result":
            count += _count_cache_control(block.get("content"))
    return count


def _check_cache_breakpoints(body: dict[str, Any]) -> str | None:
    found = _count_cache_control(body.get("tools")) + _count_cache_control(body.get("system"))
    for message in body["messages"]:
        found += _count_cache_control(message["content"])
    if found > MAX_CACHE_BREAKPOINTS:
        return (
            f"A maximum of {MAX_CACHE_BREAKPOINTS} blocks with cache_control may be provided. "
            f"Found {found}."
        )
    return None


@dataclass
class _Turn:
    """Consecutive same-role messages merged, remembering where each block came from."""

    role: str
    blocks: list[tuple[int, int, dict[str, Any]]] = field(default_factory=list)


def _merged_turns(messages: list[dict[str, Any]]) -> list[_Turn]:
    turns: list[_Turn] = []
    for i, message in enumerate(messages):
        if not turns or turns[-1].role != message["role"]:
            turns.append(_Turn(message["role"]))
        content = message["content"]
        if isinstance(content, str):
            turns[-1].blocks.append((i, 0, {"type": "text", "text": content}))
        else:
            turns[-1].blocks.extend((i, j, block) for j, block in enumerate(content))
    return turns


def _check_tool_pairing(messages: list[dict[str, Any]]) -> str | None:
    turns = _merged_turns(messages)
    seen_ids: set[str] = set()
    for t, turn in enumerate(turns):
        if turn.role == "user":
            previous = turns[t - 1] if t > 0 else None
            offered = {
                b.get("id")
                for _, _, b in (previous.blocks if previous else [])
                if b["type"] == "tool_use"
            }
            for i, j, block in turn.blocks:
                if block["type"] == "tool_result" and block.get("tool_use_id") not in offered:
                    return (
                        f"messages.{i}.content.{j}: unexpected `tool_use_id` found in "
                        f"`tool_result` blocks: {block.get('tool_use_id')}. Each `tool_result` "
                        "block must have a corresponding `tool_use` block in the previous message."
                    )
            continue

        uses = [(i, j, b) for i, j, b in turn.blocks if b["type"] == "tool_use"]
        for i, j, block in uses:
            if block["id"] in seen_ids:
                return f"messages.{i}.content.{j}: `tool_use` ids must be unique"
            seen_ids.add(block["id"])
        if not uses:
            continue
        following = turns[t + 1] if t + 1 < len(turns) else None
        answered: set[str] = set()
        for _, _, block in following.blocks if following else []:
            if block["type"] != "tool_result":
                break  # tool_result blocks must come first in the next message
            answered.add(block.get("tool_use_id"))
        missing = [(i, b["id"]) for i, _, b in uses if b["id"] not in answered]
        if missing:
            return (
                f"messages.{missing[0][0]}: `tool_use` ids were found without `tool_result` "
                f"blocks immediately after: {', '.join(m[1] for m in missing)}. Each `tool_use` "
                "block must have a corresponding `tool_result` block in the next message."
            )
    return None
