"""Textual's terminal driver, made to survive its terminal going away.

When the terminal window closes, the kernel sends SIGHUP and every later
write to it fails with EIO. Textual writes from a background thread that
dies on the first failed write; its queue then fills and the next write on
the main thread blocks forever, so agentcli could never finish the turn it
was interrupting (and kill the commands it started) nor exit. The driver
below writes through a stream that drops output once the terminal is gone.

Textual has no public way to give the driver a stream, so this goes through
`agentcli.frontends.tui.textual_private` (`driver_output`, `set_driver_output`).
"""

from __future__ import annotations

from typing import IO, Any

from textual.drivers.linux_driver import LinuxDriver

from agentcli.frontends.tui.textual_private import driver_output, set_driver_output


class TerminalStream:
    """A text stream whose writes and flushes stop failing once the terminal is gone."""

    def __init__(self, stream: IO[str]) -> None:
        self._stream = stream
        self.gone = False

    def write(self, text: str) -> int:
        if not self.gone:
            try:
                self._stream.write(text)
            except OSError:  # EIO / EPIPE: nobody is there to read it
                self.gone = True
        return len(text)

    def flush(self) -> None:
        if not self.gone:
            try:
                self._stream.flush()
            except OSError:
                self.gone = True

    def __getattr__(self, name: str) -> Any:  # fileno(), isatty(), encoding...
        return getattr(self._stream, name)


class SurvivingLinuxDriver(LinuxDriver):
    """LinuxDriver writing through a TerminalStream."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        stream = driver_output(self)
        if stream is not None:  # (None only without a stderr: then there is nothing to guard)
            # A TerminalStream is a text stream by duck typing (it forwards the rest).
            set_driver_output(self, TerminalStream(stream))  # type: ignore[arg-type]
