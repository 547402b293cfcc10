"""How the app ends: from outside by a signal, and in every case by closing what it holds.

SIGTERM or SIGHUP stops the turn as Esc does (commands are killed, the
transcript is marked), waits for it to end, then exits with 128 + signum
(agentcli/frontends/shutdown.py). When the app unmounts, however it ended, the MCP link
and custom commands go, the SessionEnd hooks run, the transcript is synced and
closed (which releases the session for other processes) and the MCP servers'
processes end.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agentcli.frontends.tui.app import AgentApp


class Ending:
    def __init__(self, app: AgentApp) -> None:
        self.app = app
        self._undo_signals: Callable[[], None] | None = None

    def follow_signals(self) -> None:
        """On mount: SIGTERM and SIGHUP end the app through `_terminating_signal`."""
        from agentcli.frontends.shutdown import TERMINATING_SIGNALS, on_signals

        loop = asyncio.get_running_loop()
        self._undo_signals = on_signals(loop, TERMINATING_SIGNALS, self._terminating_signal)

    def _terminating_signal(self, signum: int) -> None:
        app = self.app
        if app.exit_signal is not None:
            return
        app.exit_signal = signum
        app.action_interrupt()
        app.run_worker(self._exit_after_turn(signum), group="shutdown", exit_on_error=False)

    async def _exit_after_turn(self, signum: int) -> None:
        from agentcli.frontends.shutdown import exit_status

        worker = self.app.turn_worker
        if worker is not None and not worker.is_finished:
            try:
                await worker.wait()
            except Exception:  # failed or cancelled: it is over either way
                pass
        self.app.exit(return_code=exit_status(signum))

    async def close(self) -> None:
        """On unmount: close the session and the servers; give the signals back."""
        from agentcli.wiring.composition import finish_session

        app = self.app
        if app.mcp_link is not None:  # no more notes or commands from the servers
            app.mcp_link.close()
        app.file_commands.clear()
        engine = app.engine
        if engine is not None:
            left = app.exit_signal is None  # else a signal ended the app
            await app.sessions.close_session(engine, "prompt_input_exit" if left else "other")
            finish_session(engine)
            if engine.mcp is not None:
                await engine.mcp.close()
        if self._undo_signals is not None:
            self._undo_signals()
