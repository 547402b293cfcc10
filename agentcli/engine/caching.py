"""Prompt-cache breakpoints: read the stable prefix from the cache on every request.

The API caches the prefix of a request (tools, then system, then messages) up
to a block carrying `cache_control`; a later request reads it if its prefix is
byte-identical, looking back a little from each breakpoint. We use three of
the four breakpoints allowed:

1. the last system block: tools and system prompt, identical for the whole
   session (no clock, no random order in either);
2. the last block of the latest message: a moving breakpoint that writes the
   whole conversation so far, for the next request to read;
3. the last block of the user message before it: exactly where the previous
   request put breakpoint 2, so this request reads that entry even when the
   turn added many blocks (more than the API's look-back).

Breakpoints are placed on copies in each request (`shape_request`), never
in the conversation or the transcript, so moving them changes no stored byte.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeGuard

from agentcli.core.messages import (
    Block,
    CacheControl,
    DocumentBlock,
    ImageBlock,
    Message,
    ServerToolResultBlock,
    ServerToolUseBlock,
    SystemBlock,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
)

EPHEMERAL: CacheControl = {"type": "ephemeral"}
_NOT_CACHEABLE = ("thinking", "redacted_thinking")
# The blocks that may carry a breakpoint: all but thinking.
_Cacheable = (
    TextBlock
    | ImageBlock
    | DocumentBlock
    | ToolUseBlock
    | ToolResultBlock
    | ServerToolUseBlock
    | ServerToolResultBlock
)


def mark_system(system: list[SystemBlock]) -> list[SystemBlock]:
    """A copy of the system blocks with a breakpoint on the last one."""
    if not system:
        return []
    blocks: list[SystemBlock] = []
    for block in system:
        copy = block.copy()
        copy.pop("cache_control", None)
        blocks.append(copy)
    blocks[-1]["cache_control"] = EPHEMERAL.copy()
    return blocks


def add_cache_breakpoints(messages: list[Message]) -> list[Message]:
    """The request's messages with breakpoints on the latest message and on the
    user message before it (copies of those two; the rest shared as is)."""
    out = list(messages)
    user_indexes = [i for i, m in enumerate(out) if m.get("role") == "user"]
    targets = {len(out) - 1} if out else set()
    earlier = [i for i in user_indexes if i < len(out) - 1]
    if earlier:
        targets.add(earlier[-1])
    for index in sorted(targets):
        out[index] = _mark_message(out[index])
    return out


def _mark_message(message: Message) -> Message:
    content = message.get("content")
    if isinstance(content, str):
        if not content:
            return message
        content = [{"type": "text", "text": content}]
    if not isinstance(content, list):
        return message
    blocks = list(content)
    for i in range(len(blocks) - 1, -1, -1):
        block = blocks[i]
        if not _cacheable(block):
            continue
        if block.get("type") == "text" and not block.get("text"):
            continue
        marked = block.copy()
        marked["cache_control"] = EPHEMERAL.copy()
        blocks[i] = marked
        return {**message, "content": blocks}
    return message


def _cacheable(block: Block) -> TypeGuard[_Cacheable]:
    return block.get("type") not in _NOT_CACHEABLE


def request_shaper(
    *steps: Callable[[list[Message]], list[Message]],
) -> Callable[[list[Message]], list[Message]]:
    """The engine's `shape_request` part (engine/parts.py): the given steps (e.g. the
    tool-result budget), then the cache breakpoints, which must see the final bytes."""

    def shape(messages: list[Message]) -> list[Message]:
        for step in steps:
            messages = step(messages)
        return add_cache_breakpoints(messages)

    return shape
