"""`agentcli` with no -p: run the app, then restore the terminal and say how to resume."""

from __future__ import annotations

import os
import signal
from typing import Any


def main(args: Any) -> int:
    import gc

    # Nearly everything created before the first frame lives as long as the app:
    # collecting it is wasted start-up time. The app re-enables collection (and
    # freezes these objects out of later full collections) once it has drawn.
    gc.disable()
    from agentcli.frontends.tui.app import AgentApp

    app = AgentApp(args, first_prompt=args.prompt)
    app.run()
    if app.state.exit_signal == signal.SIGHUP:  # the terminal is gone: write nowhere from now on
        _detach_from_terminal()
    engine = app.engine  # its transcript was closed when the app unmounted
    if engine is not None and engine.messages:
        try:
            print(f"Resume this session with: agentcli --resume {engine.session_id}")
        except OSError:  # the terminal is gone (SIGHUP)
            pass
    return app.return_code or 0


def _detach_from_terminal() -> None:
    """Point stdout and stderr at /dev/null, so the last messages and the interpreter's
    final flush do not fail (and change the exit status) on a closed terminal."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    for fd in (1, 2):
        os.dup2(devnull, fd)
    os.close(devnull)
