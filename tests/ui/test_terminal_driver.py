"""The driver that survives a closed terminal, and the Textual detail it relies on."""

from __future__ import annotations

import signal
import sys

from textual.app import App
from textual.drivers._writer_thread import MAX_QUEUED_WRITES, WriterThread

from agentcli.ui.app import AgentApp
from agentcli.ui.terminal_driver import SurvivingLinuxDriver, TerminalStream


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


def test_textuals_writer_thread_keeps_draining_after_the_terminal_closed():
    writer = WriterThread(TerminalStream(ClosedTerminal()))  # type: ignore[arg-type]
    writer.start()
    for _ in range(MAX_QUEUED_WRITES * 4):  # more than its queue holds: would block if it died
        writer.write("frame")
    writer.stop()
    assert not writer.is_alive()


async def test_the_driver_writes_through_the_surviving_stream():
    """The private Textual detail: LinuxDriver writes to `self._file` (stderr)."""
    saved = {s: signal.getsignal(s) for s in (signal.SIGTSTP, signal.SIGCONT)}
    try:
        driver = SurvivingLinuxDriver(App())
    finally:
        for signum, handler in saved.items():
            signal.signal(signum, handler)
    assert isinstance(driver._file, TerminalStream)
    assert driver._file._stream is sys.__stderr__


def test_the_app_picks_the_surviving_driver_on_linux():
    assert sys.platform.startswith("linux")  # agentcli's CI; other systems keep Textual's own
    assert AgentApp().get_driver_class() is SurvivingLinuxDriver
