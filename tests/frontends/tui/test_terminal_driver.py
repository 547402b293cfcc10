"""The driver that survives a closed terminal.

(The Textual internals it relies on are tested in test_textual_private.py.)
"""

from __future__ import annotations

import signal
import sys

from textual.app import App

from agentcli.frontends.tui.app import AgentApp
from agentcli.frontends.tui.terminal_driver import SurvivingLinuxDriver, TerminalStream
from agentcli.frontends.tui.textual_private import driver_output


class ClosedTerminal:
    """A stream like a pty whose window was closed: every write fails with EIO."""

    def write(self, text: str) -> int:
        raise OSError(5, "Input/output error")

    def flush(self) -> None:
        raise OSError(5, "Input/output error")

    def fileno(self) -> int:
        return 2


def test_writes_to_a_closed_terminal_are_dropped_not_raised():
    stream = TerminalStream(ClosedTerminal())  # type: ignore[arg-type]
    assert stream.write("frame") == 5
    stream.flush()
    assert stream.gone
    assert stream.fileno() == 2  # everything else passes through


async def test_the_driver_writes_through_the_surviving_stream():
    saved = {s: signal.getsignal(s) for s in (signal.SIGTSTP, signal.SIGCONT)}
    try:
        driver = SurvivingLinuxDriver(App())
    finally:
        for signum, handler in saved.items():
            signal.signal(signum, handler)
    stream = driver_output(driver)
    assert isinstance(stream, TerminalStream)
    assert stream.fileno() == sys.__stderr__.fileno()  # the terminal Textual writes to


def test_the_app_picks_the_surviving_driver_on_linux():
    assert sys.platform.startswith("linux")  # agentcli's CI; other systems keep Textual's own
    assert AgentApp().get_driver_class() is SurvivingLinuxDriver
