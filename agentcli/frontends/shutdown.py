"""Ending a run from outside: Ctrl+C, a CI timeout (SIGTERM), a closed terminal (SIGHUP).

Every command the Bash tool starts leads its own process group (so Esc can
kill all of it), which also means the terminal's own SIGHUP never reaches it.
If agentcli simply died on SIGTERM or SIGHUP, those commands would run on,
adopted by PID 1. So both signals end agentcli the way an interrupt does: the
turn's abort signal fires (running commands' groups are killed, unfinished
calls get their results, the transcript gets the interrupted marker), the
front end writes what it still owes (headless: the final result object), and
the process exits with 128 + the signal number, as a shell reports it.

Both front ends use this module; it knows nothing about either.
"""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Callable

TERMINATING_SIGNALS = (signal.SIGTERM, signal.SIGHUP)


def exit_status(signum: int) -> int:
    """128 + the signal number: 143 for SIGTERM, 129 for SIGHUP, 130 for SIGINT."""
    return 128 + signum


def signal_name(signum: int) -> str:
    try:
        return signal.Signals(signum).name
    except ValueError:
        return f"signal {signum}"


def on_signals(
    loop: asyncio.AbstractEventLoop,
    signums: tuple[int, ...],
    handler: Callable[[int], None],
) -> Callable[[], None]:
    """Call `handler(signum)` in the loop for each of `signums`. Returns an undo.

    Signals that cannot be handled here (not the main thread, no such signal on
    this platform) are skipped: the default action then applies, as before.
    """
    installed: list[int] = []
    for signum in signums:
        try:
            loop.add_signal_handler(signum, handler, signum)
        except (NotImplementedError, RuntimeError, ValueError):
            continue
        installed.append(signum)

    def undo() -> None:
        for signum in installed:
            loop.remove_signal_handler(signum)

    return undo
