"""A rewind in the app, step by step: which prompt, what to restore, and the conflicts.

`/rewind` and Esc twice on an empty prompt start it (AgentApp.open_rewind, in
a worker, since each step waits for a screen of frontends/tui/screens/rewind.py):

1. the conversation's prompts, with the files the agent changed since each;
2. restore code and conversation, the conversation only, or the code only
   (the conversation choices are off for a prompt a compaction summarised);
3. when some of those files changed after the agent's last edit (by a shell
   command or by the person): keep those changes (the other files are
   restored), overwrite them, or cancel.

Restoring code reports each file in the conversation (session/rewind.py);
restoring the conversation takes the engine back to just before the prompt,
shows the conversation as the transcript now has it (and the todo list it
had then), and puts the prompt back into the input to edit.

The flow gets a `RewindHost` (the widgets it shows the result in, the screens
it asks with) and a way to wait for the turn's end, never the app.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Protocol

from agentcli.core.messages import Message
from agentcli.frontends.tui.history_view import render_history
from agentcli.frontends.tui.screens.rewind import (
    NOT_TRACKED,
    PromptRow,
    RewindPicker,
    RewindQuestion,
)
from agentcli.session.checkpoints import SessionCheckpoints
from agentcli.session.loader import TranscriptError, load_session
from agentcli.session.rewind import OnConflict, apply_rewind, plan_rewind
from agentcli.tools.todo_write import latest_todos

if TYPE_CHECKING:
    from agentcli.engine.query_engine import QueryEngine
    from agentcli.frontends.tui.state import AppState
    from agentcli.frontends.tui.widgets.conversation import Conversation
    from agentcli.frontends.tui.widgets.prompt_input import PromptInput
    from agentcli.frontends.tui.widgets.todo_list import TodoPanel

BOTH, CONVERSATION, CODE = "both", "conversation", "code"


class RewindHost(Protocol):
    """What the rewind needs of the app."""

    @property
    def state(self) -> AppState: ...
    @property
    def conversation(self) -> Conversation: ...
    @property
    def todo_panel(self) -> TodoPanel: ...
    @property
    def prompt(self) -> PromptInput: ...
    def note(self, text: str, level: str = "info") -> None: ...
    def refresh_status(self) -> None: ...
    async def clear_conversation(self) -> None: ...
    def push_screen(self, screen: Any, *, wait_for_dismiss: bool) -> Any: ...


async def run_rewind(app: RewindHost, wait_for_turn: Callable[[], Awaitable[None]]) -> None:
    """The whole rewind; every cancel leaves everything as it was. `wait_for_turn`:
    until the last turn's worker ended (frontends/tui/turns.py)."""
    engine = app.state.engine
    checkpoints = engine.checkpoints if engine is not None else None
    if engine is None or not isinstance(checkpoints, SessionCheckpoints):
        app.note("Rewind is not available: this session keeps no checkpoints.", "warning")
        return
    if engine.busy:
        app.note("A turn is running: press Esc to stop it, then rewind.", "warning")
        return
    await wait_for_turn()  # the turn is over; its worker may still be ending
    rows = await asyncio.to_thread(_rows, checkpoints)
    if not rows:
        app.note("Nothing to rewind yet: no prompt in this conversation.")
        return
    prompt_id = await app.push_screen(RewindPicker(rows), wait_for_dismiss=True)
    if prompt_id is None:
        return
    files = await asyncio.to_thread(plan_rewind, checkpoints, prompt_id)
    what = await app.push_screen(
        _choice(engine, prompt_id, [app_path(engine, p) for p in files.paths]),
        wait_for_dismiss=True,
    )
    if what is None:
        return
    report = None
    if what in (BOTH, CODE):
        report = await _restore_code(app, engine, checkpoints, prompt_id)
        if report is None:
            return
    if what in (BOTH, CONVERSATION):
        await _restore_conversation(app, engine, prompt_id)
    if report is not None:  # after the conversation is shown again, so it stays in view
        app.note("Rewound the code:\n" + "\n".join(f"  {line}" for line in report))


def app_path(engine: QueryEngine, path: Any) -> str:
    return engine.workspace.display_path(path)


def _rows(checkpoints: SessionCheckpoints) -> list[PromptRow]:
    return [
        PromptRow(mark.id, mark.time, mark.first_line, len(checkpoints.changed_since(mark.id)))
        for mark in checkpoints.prompts()
    ]


def _choice(engine: QueryEngine, prompt_id: str, paths: list[str]) -> RewindQuestion:
    in_conversation = prompt_id in engine.prompt_ids()
    lines = [f"Files the agent changed since: {', '.join(paths)}" if paths else "No file changed."]
    if not in_conversation:
        lines.append("A compaction summarised that part of the conversation: code only.")
    lines.append(NOT_TRACKED)
    return RewindQuestion(
        "What should go back to how it was before this prompt?",
        lines,
        [
            (BOTH, "Restore code and conversation", in_conversation),
            (CONVERSATION, "Restore conversation only", in_conversation),
            (CODE, "Restore code only", bool(paths)),
            ("", "Cancel", True),
        ],
    )


async def _restore_code(
    app: RewindHost, engine: QueryEngine, checkpoints: SessionCheckpoints, prompt_id: str
) -> list[str] | None:
    """Restore the files (asking about the person's own changes); the report's lines,
    or None when cancelled."""
    plan = await asyncio.to_thread(plan_rewind, checkpoints, prompt_id)
    on_conflict: OnConflict = "keep"
    if plan.conflicts:
        paths = [app_path(engine, p) for p in plan.conflicts]
        answer = await app.push_screen(_conflicts(paths), wait_for_dismiss=True)
        if answer not in ("keep", "overwrite"):
            return None
        on_conflict = "overwrite" if answer == "overwrite" else "keep"
    report = await asyncio.to_thread(apply_rewind, checkpoints, plan, on_conflict=on_conflict)
    return report.lines(lambda p: app_path(engine, p))


def _conflicts(paths: list[str]) -> RewindQuestion:
    return RewindQuestion(
        "These files changed since the agent's last edit (by a shell command or by you):",
        [*paths, "Restoring them would overwrite those changes."],
        [
            ("keep", "Keep those changes (restore the other files)", True),
            ("overwrite", "Overwrite those changes too", True),
            ("", "Cancel", True),
        ],
    )


async def _restore_conversation(app: RewindHost, engine: QueryEngine, prompt_id: str) -> None:
    message = engine.rewind_conversation(prompt_id)
    await app.clear_conversation()
    history, displays = await asyncio.to_thread(_history, engine)
    await render_history(app.conversation, history, displays, engine.tools, engine.workspace)
    app.todo_panel.show_list(latest_todos(history))
    app.note("Rewound the conversation to before that prompt; it is back in the input.")
    app.prompt.restore(message)  # its images too
    app.prompt.focus()
    app.refresh_status()


def _history(engine: QueryEngine) -> tuple[list[Message], dict[str, Any]]:
    """The conversation as `--resume` will show it, from the transcript; the engine's
    messages when there is no transcript to read."""
    transcript = engine.transcript
    if transcript is not None and transcript.path.exists():
        try:
            loaded = load_session(transcript.path)
        except TranscriptError:
            pass
        else:
            return loaded.history, dict(loaded.displays)
    return list(engine.messages), {}
