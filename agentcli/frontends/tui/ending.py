"""How the app ends: from outside by a signal, and in every case by closing what it holds.

SIGTERM or SIGHUP stops the turn as Esc does (commands are killed, the
transcript is marked), waits for it to end, then exits with 128 + signum
(agentcli/frontends/shutdown.py). When the app unmounts, however it ended, the MCP link
and custom commands go, the SessionEnd hooks run, the transcript is synced and
closed (which releases the session for other processes) and the MCP servers'
processes end.

What it needs of the turn runner and the session switcher is given to it
(`interrupt`, `wait_for_turn`, `close_session`); of the app, an `EndingHost`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Protocol

from agentcli.frontends.tui.host import RunsWorkers

if TYPE_CHECKING:
    from agentcli.commands.file_commands import FileCommands
    from agentcli.engine.query_engine import QueryEngine
    from agentcli.frontends.tui.state import AppState


class EndingHost(RunsWorkers, Protocol):
    """What the ending needs of the app."""

    @property
    def state(self) -> AppState: ...
    @property
    def file_commands(self) -> FileCommands: ...
    def exit(self, result: Any = None, return_code: int = 0) -> None: ...


class Ending:
    def __init__(
        self,
        app: EndingHost,
        *,
        interrupt: Callable[[], None],
        wait_for_turn: Callable[[], Awaitable[None]],
        close_session: Callable[[QueryEngine, str], Awaitable[None]],
    ) -> None:
        """`interrupt`: as Esc; `wait_for_turn`: until the turn's worker ended;
        `close_session`: the SessionEnd hooks (frontends/tui/sessions.py)."""
        self.app = app
        self.interrupt = interrupt
        self.wait_for_turn = wait_for_turn
        self.close_session = close_session
        self._undo_signals: Callable[[], None] | None = None

    def follow_signals(self) -> None:
        """On mount: SIGTERM and SIGHUP end the app through `_terminating_signal`."""
        from agentcli.frontends.shutdown import TERMINATING_SIGNALS, on_signals

        loop = asyncio.get_running_loop()
        self._undo_signals = on_signals(loop, TERMINATING_SIGNALS, self._terminating_signal)

    def _terminating_signal(self, signum: int) -> None:
        app = self.app
        if app.state.exit_signal is not None:
            return
        app.state.exit_signal = signum
        self.interrupt()
        app.run_worker(self._exit_after_turn(signum), group="shutdown", exit_on_error=False)

    async def _exit_after_turn(self, signum: int) -> None:
        from agentcli.frontends.shutdown import exit_status

        await self.wait_for_turn()
        self.app.exit(return_code=exit_status(signum))

    async def close(self) -> None:
        """On unmount: close the session and the servers; give the signals back."""
        from agentcli.wiring.composition import finish_session

        app = self.app
        if app.state.mcp_link is not None:  # no more notes or commands from the servers
            app.state.mcp_link.close()
        app.file_commands.clear()
        engine = app.state.engine
        if engine is not None:
            left = app.state.exit_signal is None  # else a signal ended the app
            await self.close_session(engine, "prompt_input_exit" if left else "other")
            finish_session(engine)
            if engine.mcp is not None:
                await engine.mcp.close()
        if self._undo_signals is not None:
            self._undo_signals()
