"""The session's life in the app: a new engine, its SessionStart and SessionEnd
hooks, and switching to an earlier session (`--resume`, `/resume`).

Each engine is one session. When the app gets an engine (built at start-up or
for a resumed session) it follows that engine's MCP servers; once the engine
has its provider, the SessionStart hooks run before the first prompt goes
(the queue waits for them, and the context they print travels with that
prompt, as in `-p`). SessionEnd hooks run when the person leaves or switches.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agentcli.engine.query_engine import QueryEngine
    from agentcli.frontends.tui.app import AgentApp

SESSION_END_AFTER_SIGNAL_S = 5.0  # SessionEnd hooks' time when a signal ends the app


class Sessions:
    def __init__(self, app: AgentApp) -> None:
        self.app = app
        # SessionStart hooks ran for this engine / are running (prompts wait for them).
        self.opened = False
        self.opening = False

    # -- a new engine -----------------------------------------------------------------

    def engine_built(self, engine: QueryEngine) -> None:
        app = self.app
        app.engine = engine
        app.initial_mode = str(engine.gate.policy.mode)
        app.banner.update(app.banner_text())
        app.refresh_status()
        self.link_mcp()

    def link_mcp(self) -> None:
        """Follow the engine's MCP servers (prompt commands, failures, `@` resources);
        a new engine may keep the same ones (frontends/tui/mcp/link.py)."""
        app = self.app
        manager = app.built_engine().mcp
        if app.mcp_link is not None:
            if app.mcp_link.manager is manager:
                return
            app.mcp_link.close()
            app.mcp_link = None
        if manager is None or not manager.configured:
            return
        from agentcli.frontends.tui.mcp.link import McpLink

        app.mcp_link = McpLink(app, manager)

    def engine_ready(self) -> None:
        """The engine has its provider (or none is coming): open the session, then send
        what waits, the first prompt first."""
        app = self.app
        if app.engine is not None and app.initial_mode is None:
            app.initial_mode = str(app.engine.gate.policy.mode)
        app.refresh_status()
        if app.first_prompt:
            prompt, app.first_prompt = app.first_prompt, None
            app.queue.insert(0, prompt)
        if app.engine is not None and not self.opened:
            self.opening = True  # the queue waits for the SessionStart hooks
            # The method, not a coroutine: none is left unawaited if the app quits first.
            # (Textual's signature cannot type an async method's result: ignored.)
            app.run_worker(
                self.open_session,  # type: ignore[arg-type]
                group="session",
                exit_on_error=False,
            )
            return
        app.turns.drain_queue()

    # -- hooks ------------------------------------------------------------------------

    async def open_session(self) -> None:
        """SessionStart hooks, once per engine, before its first prompt goes (the context
        they print travels with that prompt, as in `-p`)."""
        engine = self.app.built_engine()
        self.opened = True
        try:
            source = "resume" if engine.messages else "startup"
            for notice in await engine.start_session(source):
                self.app.note(notice, "warning")
        finally:
            self.opening = False
            self.app.turns.drain_queue()

    async def close_session(self, engine: QueryEngine, reason: str) -> None:
        """SessionEnd hooks, when the person leaves or switches sessions (or a signal
        ends the app: then bounded, since whoever sent it is waiting)."""
        if not self.opened:
            return
        self.opened = False
        ending = engine.end_session(reason)
        if self.app.exit_signal is None:
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
        sessions = await asyncio.to_thread(list_sessions, app.cwd)
        current = app.engine.session_id if app.engine is not None else None
        sessions = [s for s in sessions if s.id != current]
        if not sessions:
            app.note("No earlier conversation in this folder.")
            return
        app.push_screen(SessionPicker(sessions), callback=self._session_picked)

    async def _session_picked(self, summary: Any) -> None:
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

    async def resume_session(self, loaded: Any) -> None:
        """A fresh engine on the session's messages, its history on screen."""
        from agentcli.wiring.bootstrap import build_engine
        from agentcli.wiring.composition import finish_session

        app = self.app
        if app.busy:
            loaded.release()
            app.note("A turn is running: press Esc first, then resume.", "warning")
            return
        old = app.engine
        provider = old.provider if old is not None else None
        mcp = old.mcp if old is not None else None  # the servers stay connected
        options = app.startup.options()
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

    async def show_resumed(self, loaded: Any) -> None:
        from agentcli.frontends.tui.history_view import render_history
        from agentcli.tools.todo_write import latest_todos

        app = self.app
        engine = app.built_engine()
        await render_history(  # the newest screens now, the rest as the person scrolls
            app.conversation, loaded.history, loaded.displays, engine.tools, engine.workspace
        )
        app.todo_panel.show_list(latest_todos(loaded.history))
        for notice in loaded.notices:
            app.note(notice, "warning")
        app.note(f"Resumed conversation {loaded.session_id} · {len(loaded.history)} messages")
        app.refresh_status()
