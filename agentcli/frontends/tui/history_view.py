"""A resumed session's earlier messages, drawn the way the live turn drew them.

The transcript holds API-shaped messages: user text, assistant text and
tool_use blocks, and user messages of tool_result blocks. Each tool_use
becomes a finished tool pane (its result paired by id), so a resumed
conversation reads like the one the person left.

Each pane gets the display the live call had, as the transcript kept it
(`LoadedSession.displays`): an edit's diff with the file's real line
numbers, a command's exit code. Rebuilding them from the calls' inputs
could not know those, and would need to know every tool; a call whose
display was not kept (a transcript from before they were) gets the
generic view, its result's first line.

A pane's summary (the line after the tool's name) needs the session's tools and
workspace; it is worked out when the pane is built, from a `ToolContext`. A
resume shows its newest items before the engine exists (session/tail_first.py):
their context is then the built-in tools in the project folder, and becomes the
engine's own once it is built, for every pane built after that.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import Any

from agentcli.core.messages import (
    Block,
    Message,
    ToolResultBlock,
    ToolUseBlock,
    is_text,
    is_tool_result,
    is_tool_use,
)
from agentcli.engine.events import ToolStatus
from agentcli.engine.loop import INTERRUPT_MARKER
from agentcli.frontends.tui.history_entries import (
    AnswerEntry,
    Entry,
    NoteEntry,
    ToolEntry,
    UserEntry,
)
from agentcli.frontends.tui.widgets.conversation import Conversation
from agentcli.tools.base import Workspace
from agentcli.tools.display import ToolDisplay
from agentcli.tools.registry import ToolRegistry


@dataclass
class ToolContext:
    """What a pane's summary is worked out with, when the pane is built."""

    tools: ToolRegistry
    workspace: Workspace


async def render_history(
    conversation: Conversation,
    messages: list[Message],
    displays: dict[str, ToolDisplay],
    tools: ToolRegistry,
    workspace: Workspace,
) -> None:
    """Show `messages` in the conversation: the newest screens now, the rest when the
    person scrolls back to them (however long the session, one pass over it here)."""
    entries = history_entries(messages, displays, ToolContext(tools, workspace))
    await conversation.load_history(entries)


def history_entries(
    messages: list[Message],
    displays: dict[str, ToolDisplay],
    context: ToolContext,
    *,
    later: list[Message] | None = None,
) -> list[Entry]:
    """One entry per item the live turn showed, oldest first; no widget is built.
    `later`: the messages that follow these (a call's result may be there)."""
    results = _results_by_id(messages + (later or []))
    entries: list[Entry] = []
    for message in messages:
        for block in _blocks(message):
            if message["role"] == "user" and is_text(block):
                text = block.get("text", "")
                if text == INTERRUPT_MARKER:
                    entries.append(NoteEntry("Interrupted", "interrupted"))
                elif text.strip():
                    entries.append(UserEntry(text))
            elif message["role"] == "assistant" and is_text(block):
                if block.get("text", "").strip():
                    entries.append(AnswerEntry(block.get("text", "")))
            elif is_tool_use(block) and isinstance(block.get("id"), str):
                entries.append(_tool_entry(block, results, displays, context))
    return entries


def _tool_entry(
    block: ToolUseBlock,
    results: dict[str, ToolResultBlock],
    displays: dict[str, ToolDisplay],
    context: ToolContext,
) -> ToolEntry:
    name, inp = str(block.get("name", "?")), block.get("input") or {}
    status, result = _outcome(block["id"], results.get(block["id"]))
    summary = partial(_summary, context, name, inp)  # validated only when built
    return ToolEntry(block["id"], name, inp, summary, status, result, displays.get(block["id"]))


def _outcome(
    tool_use_id: str, result: ToolResultBlock | None
) -> tuple[ToolStatus, ToolResultBlock]:
    """The pane's final state and the result block it shows."""
    if result is None:
        result = {"type": "tool_result", "tool_use_id": tool_use_id, "content": "(no result)"}
    return ("failed" if result.get("is_error") else "done"), result


def _summary(context: ToolContext, name: str, inp: dict[str, Any]) -> str:
    tool = context.tools.get(name)
    if tool is None:
        return ""
    try:
        return tool.summary(tool.input_model.model_validate(inp), context.workspace)
    except Exception:  # an old or odd input still gets a pane, just without a summary
        return ""


def _results_by_id(messages: list[Message]) -> dict[str, ToolResultBlock]:
    return {
        block["tool_use_id"]: block
        for message in messages
        if message["role"] == "user"
        for block in _blocks(message)
        if is_tool_result(block)
    }


def _blocks(message: Message) -> list[Block]:
    content = message.get("content")
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return [b for b in content or [] if isinstance(b, dict)]
