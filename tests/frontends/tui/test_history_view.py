"""A resumed history's entries (history_view.py): the panes' summaries are worked out
once, when first asked, and a resume's tail asks for them only after its first frame
(`finish_tail`), in the loader's thread, ahead of the fill that builds the panes."""

from __future__ import annotations

from pathlib import Path

from agentcli.frontends.tui.history_entries import AnswerEntry, LazyDisplay, ToolEntry
from agentcli.frontends.tui.history_view import (
    PreparedHistory,
    ToolContext,
    finish_tail,
    history_entries,
    prepare_rest,
)
from agentcli.session.loader import LoadedSession
from agentcli.tools.base import Workspace
from agentcli.tools.display import ReadDisplay
from agentcli.tools.registry import ToolRegistry
from tests.engine.scripted import Probe, make_tool


class Counted:
    """A tool whose summaries are counted."""

    def __init__(self, name: str) -> None:
        self.tool = make_tool(name, Probe(), safe=True)
        self.asked = 0
        summary = self.tool.summary

        def counted(inp, workspace):
            self.asked += 1
            return summary(inp, workspace)

        self.tool.summary = counted  # type: ignore[method-assign]


def a_call(name: str, value: str) -> list:
    """A prompt, a call of `name` with its result, and an answer."""
    return [
        {"role": "user", "content": [{"type": "text", "text": "go"}]},
        {
            "role": "assistant",
            "content": [
                {"type": "tool_use", "id": "toolu_1", "name": name, "input": {"value": value}}
            ],
        },
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "done"}],
        },
        {"role": "assistant", "content": [{"type": "text", "text": "All done."}]},
    ]


def tool_entry(entries) -> ToolEntry:
    [entry] = [e for e in entries if isinstance(e, ToolEntry)]
    return entry


def pane_summary(entry: ToolEntry) -> str:
    """The summary the entry's pane is built with (`ToolEntry.build`)."""
    return entry.summary() if callable(entry.summary) else entry.summary


def test_a_panes_summary_is_worked_out_once_when_first_asked(tmp_path: Path):
    echo = Counted("Echo")
    context = ToolContext(ToolRegistry([echo.tool]), Workspace(tmp_path))
    entries = history_entries(a_call("Echo", "the value"), {}, context)
    assert isinstance(entries[-1], AnswerEntry)
    entry = tool_entry(entries)
    assert echo.asked == 0  # nothing worked out while the entries were made
    assert pane_summary(entry) == "the value"
    assert pane_summary(entry) == "the value"  # a second build: the same line, kept
    assert echo.asked == 1


def test_a_summary_waits_for_tools_that_know_the_tool(tmp_path: Path):
    """A call of a tool the built-in tools lack (an MCP server's) gets its summary from
    the engine's tools once the context has them, not an empty one kept from before."""
    echo = Counted("mcp__srv__echo")
    context = ToolContext(ToolRegistry([]), Workspace(tmp_path))
    entry = tool_entry(history_entries(a_call("mcp__srv__echo", "v"), {}, context))
    assert pane_summary(entry) == ""
    context.tools = ToolRegistry([echo.tool])  # the engine is built
    assert pane_summary(entry) == "v"


def test_the_tails_summaries_are_worked_out_after_its_first_frame(tmp_path: Path):
    """`finish_tail` (the loader's thread, once the tail is drawn) works out the panes'
    summaries of the tools it knows, so the fill's build of the pane only reads it."""
    echo = Counted("Echo")
    context = ToolContext(ToolRegistry([echo.tool]), Workspace(tmp_path))
    messages = a_call("Echo", "v") + a_call("mcp__srv__other", "w")
    entries = history_entries(messages, {}, context)
    loaded = LoadedSession(path=tmp_path / "s.jsonl", session_id="s", history=messages)
    finish_tail(PreparedHistory(loaded, entries, context, ()))
    assert echo.asked == 1
    echo_entry = next(e for e in entries if isinstance(e, ToolEntry) and e.name == "Echo")
    assert pane_summary(echo_entry) == "v"
    assert echo.asked == 1


def test_a_recorded_display_is_validated_when_the_pane_shows_it(tmp_path: Path):
    """A resume's tail keeps its displays as recorded (session/loader.py `parse_tail`):
    the entry validates its display once, when its pane is built or `finish_tail` asks."""
    context = ToolContext(ToolRegistry([Counted("Echo").tool]), Workspace(tmp_path))
    recorded = {"toolu_1": {"type": "read", "path": "a.py", "lines": 3}}
    messages = a_call("Echo", "v")
    entry = tool_entry(history_entries(messages, {}, context, recorded=recorded))
    assert isinstance(entry.display, LazyDisplay)
    shown = entry.shown_display()
    assert shown == ReadDisplay(path="a.py", lines=3)
    assert entry.shown_display() is shown  # validated once
    entries = history_entries(messages, {}, context, recorded=recorded)
    loaded = LoadedSession(path=tmp_path / "s.jsonl", session_id="s", history=messages)
    finish_tail(PreparedHistory(loaded, entries, context, ()))
    display = tool_entry(entries).display
    assert isinstance(display, LazyDisplay) and display() == shown
    odd = {"toolu_1": {"type": "read", "path": 7}}  # a display this version cannot read
    assert tool_entry(history_entries(messages, {}, context, recorded=odd)).shown_display() is None


def test_the_rests_entries_are_built_with_collection_paused_then_frozen(
    tmp_path: Path, monkeypatch
):
    """The entries of a long session's rest all live on: no cyclic collection walks
    them while they are built (each would hold the app's loop), and they are frozen
    out of later ones, before collection is on again."""
    import gc

    from agentcli.frontends.tui import history_view

    context = ToolContext(ToolRegistry([]), Workspace(tmp_path))
    messages = a_call("Echo", "v") + a_call("Echo", "w")
    tail = LoadedSession(path=tmp_path / "s.jsonl", session_id="s", history=messages[4:])
    whole = LoadedSession(path=tmp_path / "s.jsonl", session_id="s", history=messages)
    shown = PreparedHistory(tail, history_entries(tail.history, {}, context), context, ())
    seen: list[tuple[bool, int]] = []
    build = history_view.history_entries

    def built(*args, **kwargs):
        seen.append((gc.isenabled(), gc.get_freeze_count()))
        return build(*args, **kwargs)

    monkeypatch.setattr(history_view, "history_entries", built)
    assert gc.isenabled()
    earlier, _ = prepare_rest(whole, shown)
    assert [type(e).__name__ for e in earlier] == ["UserEntry", "ToolEntry", "AnswerEntry"]
    assert seen[0][0] is False  # paused while they were built
    assert gc.isenabled() and gc.get_freeze_count() > seen[0][1]  # frozen after
