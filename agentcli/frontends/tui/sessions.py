"""The session's life in the app: a new engine, its SessionStart and SessionEnd
hooks, and switching to an earlier session (`--resume`, `/resume`).

Each engine is one session. When the app gets an engine (built at start-up or
for a resumed session) it follows that engine's MCP servers; once the engine
has its provider, the SessionStart hooks run before the first prompt goes
(the queue waits for them, and the context they print travels with that
prompt, as in `-p`). SessionEnd hooks run when the person leaves or switches.

The switcher writes the session's part of the shared state (AppState: the
engine, its first mode, its MCP link, `opening`) and nothing else of the app:
when the hooks are done it posts SessionOpened, and the app lets the queue go.
It gets a `SessionHost`: the few things of the app it reads or calls.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Protocol

from agentcli.frontends.tui.host import RunsWorkers
from agentcli.frontends.tui.messages import SessionOpened

if TYPE_CHECKING:
    from pathlib import Path

    from rich.text import Text
    from textual.message import Message
    from textual.widgets import Static
    from textual.worker import Worker

    from agentcli.commands.registry import CommandRegistry
    from agentcli.engine.query_engine import QueryEngine
    from agentcli.frontends.tui.history_view import PreparedHistory
    from agentcli.frontends.tui.state import AppState
    from agentcli.frontends.tui.widgets.conversation import Conversation
    from agentcli.frontends.tui.widgets.todo_list import TodoPanel
    from agentcli.session.loader import LoadedSession
    from agentcli.session.store import SessionSummary
    from agentcli.wiring.bootstrap import Options

SESSION_END_AFTER_SIGNAL_S = 5.0  # SessionEnd hooks' time when a signal ends the app


class SessionHost(RunsWorkers, Protocol):
    """What the session switcher needs of the app (and the MCP link it makes)."""

    @property
    def state(self) -> AppState: ...
    @property
    def cwd(self) -> Path: ...
    @property
    def busy(self) -> bool: ...
    @property
    def banner(self) -> Static: ...
    @property
    def conversation(self) -> Conversation: ...
    @property
    def todo_panel(self) -> TodoPanel: ...
    @property
    def registry(self) -> CommandRegistry: ...
    def banner_text(self) -> Text: ...
    def note(self, text: str, level: str = "info") -> None: ...
    def refresh_status(self) -> None: ...
    def post_message(self, message: Message) -> bool: ...
    def call_after_refresh(self, callback: Callable[..., Any], *args: Any) -> bool: ...
    def push_screen(self, screen: Any, callback: Any = None) -> Any: ...
    async def clear_conversation(self) -> None: ...


class Sessions:
    def __init__(self, app: SessionHost, options: Callable[[], Options]) -> None:
        """`options`: the bootstrap Options a new engine is built with (start-up's)."""
        self.app = app
        self.options = options
        self.opened = False  # SessionStart hooks ran for this engine (or are running)
        # A resumed session's tail on screen, waiting for the whole session (show_tail).
        self.tail_shown: PreparedHistory | None = None
        self.showing: Worker[None] | None = None  # the last of show_in_turn's drawings

    # -- a new engine -----------------------------------------------------------------

    def engine_built(self, engine: QueryEngine) -> None:
        app = self.app
        app.state.engine = engine
        app.state.initial_mode = str(engine.gate.policy.mode)
        app.banner.update(app.banner_text())
        app.refresh_status()
        self.link_mcp()

    def link_mcp(self) -> None:
        """Follow the engine's MCP servers (prompt commands, failures, `@` resources);
        a new engine may keep the same ones (frontends/tui/mcp/link.py)."""
        app = self.app
        manager = app.state.built_engine().mcp
        if app.state.mcp_link is not None:
            if app.state.mcp_link.manager is manager:
                return
            app.state.mcp_link.close()
            app.state.mcp_link = None
        if manager is None or not manager.configured:
            return
        from agentcli.frontends.tui.mcp.link import McpLink

        app.state.mcp_link = McpLink(app, manager)

    def engine_ready(self) -> None:
        """The engine has its provider (or none is coming): open the session, then send
        what waits, the first prompt first."""
        app = self.app
        engine = app.state.engine
        if engine is not None and app.state.initial_mode is None:
            app.state.initial_mode = str(engine.gate.policy.mode)
        app.refresh_status()
        if engine is not None and not self.opened:
            app.state.opening = True  # the queue waits for the SessionStart hooks
            # The method, not a coroutine: none is left unawaited if the app quits first.
            # (Textual's signature cannot type an async method's result: ignored.)
            app.run_worker(
                self.open_session,  # type: ignore[arg-type]
                group="session",
                exit_on_error=False,
            )
            return
        app.post_message(SessionOpened())

    def show_in_turn(self, show: Callable[[], Awaitable[None]]) -> None:
        """Draw part of a resumed session's history in a worker, beside the app's own
        messages (a key pressed meanwhile is handled between the mounts, not after
        them all), each part after the one before; the session opens after the last."""
        before = self.showing

        async def in_turn() -> None:
            await _finished(before)
            try:
                await show()
            except Exception as problem:  # the session still opens, its history unshown
                self.app.note(f"Could not show the resumed conversation: {problem}", "error")

        self.showing = self.app.run_worker(in_turn, group="resume", exit_on_error=False)

    # -- hooks ------------------------------------------------------------------------

    async def open_session(self) -> None:
        """SessionStart hooks, once per engine, before its first prompt goes (the context
        they print travels with that prompt, as in `-p`)."""
        engine = self.app.state.built_engine()
        self.opened = True
        try:
            await _finished(self.showing)  # the resumed history is in before a prompt goes
            source = "resume" if engine.messages else "startup"
            for notice in await engine.start_session(source):
                self.app.note(notice, "warning")
        finally:
            self.app.state.opening = False
            self.app.post_message(SessionOpened())

    async def close_session(self, engine: QueryEngine, reason: str) -> None:
        """SessionEnd hooks, when the person leaves or switches sessions (or a signal
        ends the app: then bounded, since whoever sent it is waiting)."""
        if not self.opened:
            return
        self.opened = False
        ending = engine.end_session(reason)
        if self.app.state.exit_signal is None:
            await ending
            return
        try:
            await asyncio.wait_for(ending, SESSION_END_AFTER_SIGNAL_S)
        except TimeoutError:
            pass

    # -- switching to an earlier session ----------------------------------------------

    async def pick_session(self) -> None:
        """The picker of this folder's sessions."""
        from agentcli.frontends.tui.screens.session_picker import SessionPicker
        from agentcli.session.store import list_sessions

        app = self.app
        sessions = await asyncio.to_thread(list_sessions, app.state.cwd)
        engine = app.state.engine
        current = engine.session_id if engine is not None else None
        sessions = [s for s in sessions if s.id != current]
        if not sessions:
            app.note("No earlier conversation in this folder.")
            return
        app.push_screen(SessionPicker(sessions), callback=self._session_picked)

    async def _session_picked(self, summary: SessionSummary | None) -> None:
        from agentcli.session.claim import claim_session
        from agentcli.session.loader import TranscriptError

        if summary is None:
            return
        try:
            loaded = await asyncio.to_thread(claim_session, summary.path)
        except TranscriptError as problem:
            self.app.note(str(problem), "error")
            return
        await self.resume_session(loaded)

    async def resume_session(self, loaded: LoadedSession) -> None:
        """A fresh engine on the session's messages, its history on screen."""
        from agentcli.wiring.bootstrap import build_engine
        from agentcli.wiring.composition import finish_session

        app = self.app
        if app.busy:
            loaded.release()
            app.note("A turn is running: press Esc first, then resume.", "warning")
            return
        old = app.state.engine
        provider = old.provider if old is not None else None
        mcp = old.mcp if old is not None else None  # the servers stay connected
        options = self.options()
        engine = await asyncio.to_thread(
            build_engine, options, provider, loaded, carry_totals=True, mcp=mcp
        )
        if old is not None:
            await self.close_session(old, "other")
            finish_session(old)
        self.engine_built(engine)
        await app.clear_conversation()
        await self.show_resumed(loaded)
        await self.open_session()

    async def show_tail(self, tail: PreparedHistory, drawn: threading.Event) -> None:
        """A resumed session's newest messages, prepared by the loader
        (history_view.py `prepare_tail`), before the rest of its transcript is read and
        its engine built (session/tail_first.py); `drawn` is set once they are on
        screen as they stay (widgets/conversation.py `after_drawn`). Their panes'
        summaries use the built-in tools until the engine has its own."""
        app = self.app
        try:
            self.tail_shown = tail
            # What is queued goes first, a key typed meanwhile and its echo: the frame
            # that draws the tail is a long one, and an echo in it waits for all of it.
            await _after_refresh(app)
            # The items above fill in once the loader has worked out what they need
            # (messages.TailFinished), or at the latest once the whole session is read.
            await app.conversation.load_history(tail.entries, fill_now=False)
            app.todo_panel.show_list(tail.todos)
        finally:
            app.conversation.after_drawn(drawn.set)

    async def show_resumed(self, loaded: LoadedSession) -> None:
        """The resumed session, whole: what its tail did not show goes above it (or,
        if the rest of the file changed what the tail showed, the whole is redrawn)."""
        from agentcli.frontends.tui.history_view import prepare_rest, render_history
        from agentcli.session.loader import tail_agrees
        from agentcli.tools.todo_write import latest_todos

        app = self.app
        engine = app.state.built_engine()
        shown, self.tail_shown = self.tail_shown, None
        if shown is not None and await asyncio.to_thread(tail_agrees, shown.loaded, loaded):
            shown.context.tools, shown.context.workspace = engine.tools, engine.workspace
            # A long history: one pass over it, not on the app's loop.
            earlier, todos = await asyncio.to_thread(prepare_rest, loaded, shown)
            await app.conversation.add_earlier_history(earlier)
        else:
            if shown is not None:
                await app.clear_conversation()
            await render_history(  # the newest screens now, the rest as the person scrolls
                app.conversation, loaded.history, loaded.displays, engine.tools, engine.workspace
            )
            todos = await asyncio.to_thread(latest_todos, loaded.history)
        app.todo_panel.show_list(todos)
        for notice in loaded.notices:
            app.note(notice, "warning")
        app.note(f"Resumed conversation {loaded.session_id} · {len(loaded.history)} messages")
        app.refresh_status()


async def _after_refresh(app: SessionHost) -> None:
    """Once the messages queued now are handled and the screen is refreshed (from a
    worker: never on the app's own message pump, which is what gets there)."""
    refreshed = asyncio.Event()
    app.call_after_refresh(refreshed.set)
    await refreshed.wait()


async def _finished(worker: Worker[None] | None) -> None:
    """Wait for a worker to end, however it ends (a failed drawing was reported)."""
    from textual.worker import WorkerCancelled, WorkerFailed

    if worker is None:
        return
    try:
        await worker.wait()
    except (WorkerCancelled, WorkerFailed):
        pass
