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

Whatever a resume can work out before it draws is worked out off the app's loop
(`prepare_tail`, `finish_tail`, `prepare_rest`: in the loader's thread or
`asyncio.to_thread`): the entries, the todo list, the newest answer's markdown
before the first frame; the summaries of the tail's panes of built-in tools
(importing the tools' modules as it goes) and the other answers' lexers
right after it. The loop only builds and mounts widgets, an item at a time
(widgets/conversation.py `load_history`).
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentcli.core.messages import (
    INTERRUPT_MARKER,
    Block,
    Message,
    ToolResultBlock,
    ToolUseBlock,
    is_text,
    is_tool_result,
    is_tool_use,
)
from agentcli.frontends.tui.history_entries import (
    AnswerEntry,
    Entry,
    LazyDisplay,
    NoteEntry,
    ToolEntry,
    UserEntry,
)

if TYPE_CHECKING:  # the engine's and the tools' modules: not on the way to a resume's first draw
    from agentcli.engine.events import ToolStatus
    from agentcli.frontends.tui.widgets.conversation import Conversation
    from agentcli.session.loader import LoadedSession
    from agentcli.tools.base import Workspace
    from agentcli.tools.display import ToolDisplay
    from agentcli.tools.registry import ToolRegistry
    from agentcli.tools.todo_write import TodoItem


@dataclass
class ToolContext:
    """What a pane's summary is worked out with, when the pane is built."""

    tools: ToolRegistry
    workspace: Workspace


@dataclass
class PreparedHistory:
    """Part of a resumed session, ready to draw: its entries and its todo list."""

    loaded: LoadedSession
    entries: list[Entry]
    context: ToolContext
    todos: tuple[TodoItem, ...]


def prepare_tail(tail: LoadedSession, cwd: Path) -> PreparedHistory:
    """A transcript's newest messages ready to draw, before the engine exists. Only
    what the first frame shows is worked out now: the app builds the newest item at
    once and the rest an item a frame after it (widgets/conversation.py
    `load_history`), so the panes' summaries and the other answers' lexers wait
    for `finish_tail`, after that frame."""
    from agentcli.tools.base import Workspace
    from agentcli.tools.registry import builtin_tools
    from agentcli.tools.todo_write import latest_todos

    context = ToolContext(builtin_tools(), Workspace(cwd))
    entries = history_entries(tail.history, tail.displays, context, recorded=tail.raw_displays)
    for entry in entries[-1:]:  # the one the first frame builds: its display too
        if isinstance(entry, ToolEntry):
            entry.shown_display()
    warm_up(entries[-1:])
    return PreparedHistory(tail, entries, context, latest_todos(tail.history))


def finish_tail(prepared: PreparedHistory) -> None:
    """What the tail's first frame did not need, worked out in the loader's thread
    once it is drawn, ahead of the fill that builds the rest an item a frame: the
    summaries of the panes of built-in tools (importing each tool's module and
    building its input model), the module that draws the panes' results, and the
    lexers of the other answers' code. A
    pane the fill builds first works its summary out itself; one of a tool the
    built-in tools do not have (an MCP server's) waits for the engine's tools."""
    import agentcli.frontends.tui.renderers  # noqa: F401  (the panes' bodies: not on the loop)

    tools = prepared.context.tools
    for entry in prepared.entries:
        if isinstance(entry, ToolEntry):
            entry.shown_display()  # the recorded display validated (its model built)
            if callable(entry.summary) and tools.get(entry.name):
                entry.summary()
    warm_up(prepared.entries)


# A fenced code block's language, as markdown-it reads the info string's first word.
_FENCE = re.compile(r"^ {0,3}(?:`{3,}|~{3,})[ \t]*([^\s`]{1,40})", re.MULTILINE)
MAX_WARMED = 8


def warm_up(entries: list[Entry]) -> None:
    """Parse the newest answer's markdown once and load the lexers of the languages
    the answers' code blocks name (a few at most, of those Pygments has built in), so
    the app's loop does not: each first use is a long moment for one frame."""
    # Pygments comes with rich (which highlights with it); it has no type hints.
    from pygments.lexers import get_all_lexers  # type: ignore[import-untyped]

    from agentcli.frontends.tui.widgets import markdown_render

    answers = [entry.source for entry in entries if isinstance(entry, AnswerEntry)]
    if not answers:
        return
    named: list[str] = []
    for source in answers:
        if "```" in source or "~~~" in source:
            named += [found.group(1).lower() for found in _FENCE.finditer(source)]
    languages: list[str] = []
    if named:
        known = {alias for _, aliases, _, _ in get_all_lexers(plugins=False) for alias in aliases}
        languages = list(dict.fromkeys(name for name in reversed(named) if name in known))
    markdown_render.warm_up(answers[-1], languages[:MAX_WARMED])


def prepare_rest(
    loaded: LoadedSession, shown: PreparedHistory
) -> tuple[list[Entry], tuple[TodoItem, ...]]:
    """The entries of what `shown` (the tail on screen, which `loaded` ends with) did
    not show, and the whole session's todo list: one pass over a long history."""
    from agentcli.frontends.tui.collection import collection_paused
    from agentcli.tools.todo_write import latest_todos

    split = len(loaded.history) - len(shown.loaded.history)
    head, rest = loaded.history[:split], loaded.history[split:]
    with collection_paused(freeze=True):  # the entries live on, as the history does
        earlier = history_entries(head, loaded.displays, shown.context, later=rest)
    return earlier, latest_todos(loaded.history)


async def render_history(
    conversation: Conversation,
    messages: list[Message],
    displays: dict[str, ToolDisplay],
    tools: ToolRegistry,
    workspace: Workspace,
) -> None:
    """Show `messages` in the conversation: the newest screens now, the rest when the
    person scrolls back to them (however long the session, one pass over it, in a
    thread: not on the app's loop)."""
    context = ToolContext(tools, workspace)
    entries = await asyncio.to_thread(history_entries, messages, displays, context)
    await conversation.load_history(entries)


def history_entries(
    messages: list[Message],
    displays: dict[str, ToolDisplay],
    context: ToolContext,
    *,
    later: list[Message] | None = None,
    recorded: dict[str, object] | None = None,
) -> list[Entry]:
    """One entry per item the live turn showed, oldest first; no widget is built.
    `later`: the messages that follow these (a call's result may be there).
    `recorded`: displays as the transcript has them, validated when drawn."""
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
                entries.append(_tool_entry(block, results, displays, context, recorded or {}))
    return entries


def _tool_entry(
    block: ToolUseBlock,
    results: dict[str, ToolResultBlock],
    displays: dict[str, ToolDisplay],
    context: ToolContext,
    recorded: dict[str, object],
) -> ToolEntry:
    name, inp, use_id = str(block.get("name", "?")), block.get("input") or {}, block["id"]
    status, result = _outcome(use_id, results.get(use_id))
    summary = Summary(partial(_summary, context, name, inp))  # validated only when asked
    display: ToolDisplay | LazyDisplay | None = displays.get(use_id)
    if display is None and use_id in recorded:
        display = LazyDisplay(recorded[use_id])
    return ToolEntry(use_id, name, inp, summary, status, result, display)


def _outcome(
    tool_use_id: str, result: ToolResultBlock | None
) -> tuple[ToolStatus, ToolResultBlock]:
    """The pane's final state and the result block it shows."""
    if result is None:
        result = {"type": "tool_result", "tool_use_id": tool_use_id, "content": "(no result)"}
    return ("failed" if result.get("is_error") else "done"), result


class Summary:
    """A pane's summary, worked out when first asked (by the pane's build, or ahead of
    it in the loader's thread: `finish_tail`) and kept; not kept while the context's
    tools do not know the tool (the engine's may: an MCP server's)."""

    __slots__ = ("_value", "_work")

    def __init__(self, work: Callable[[], str | None]) -> None:
        self._work = work
        self._value: str | None = None

    def __call__(self) -> str:
        if self._value is None:
            self._value = self._work()  # two threads may both work it out: the same text
        return self._value or ""


def _summary(context: ToolContext, name: str, inp: dict[str, Any]) -> str | None:
    """The line after the tool's name; None while the context's tools lack the tool."""
    tool = context.tools.get(name)
    if tool is None:
        return None
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
