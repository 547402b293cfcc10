"""Run the fake API as a process: `python -m tests.fakeapi --scenario FILE.json`.

Prints `FAKEAPI_URL=http://127.0.0.1:PORT` on one flushed stdout line, so a parent
process can read the URL instead of guessing a free port, then serves until it gets
SIGTERM/SIGINT or until its stdin (when it is a pipe or a terminal) reaches EOF, so
the server dies with a parent that held its stdin open.
"""

from __future__ import annotations

import argparse
import os
import signal
import stat
import sys
import threading
from collections.abc import Sequence

from .scenario import ScenarioError, load_scenario
from .server import FakeAnthropic, RecordedRequest


def _stdin_is_watchable() -> bool:
    try:
        mode = os.fstat(sys.stdin.fileno()).st_mode
    except (OSError, ValueError, AttributeError):
        return False
    # /dev/null or a regular file would hit EOF at once and stop the server.
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or sys.stdin.isatty()


def _watch_stdin(done: threading.Event) -> None:
    try:
        while sys.stdin.buffer.read1(65536):
            pass
    except (OSError, ValueError):
        pass
    done.set()


def _log(request: RecordedRequest) -> None:
    print(f"fakeapi: {request.method} {request.path} -> {request.status}", file=sys.stderr)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.fakeapi", description=__doc__)
    parser.add_argument(
        "--scenario", required=True, help="a JSON scenario file, or 'seed' or 'echo'"
    )
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port")
    parser.add_argument("--api-key", default=None, help="answer 401 unless requests use it")
    parser.add_argument("--log", action="store_true", help="one line per request on stderr")
    args = parser.parse_args(argv)

    try:
        scenario = load_scenario(args.scenario)
    except ScenarioError as err:
        parser.error(str(err))

    done = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: done.set())
    server = FakeAnthropic(
        scenario.responses,
        default=scenario.default,
        api_key=args.api_key,
        host=args.host,
        port=args.port,
        on_request=_log if args.log else None,
    )
    with server:
        print(f"FAKEAPI_URL={server.base_url}", flush=True)
        if _stdin_is_watchable():
            threading.Thread(target=_watch_stdin, args=(done,), daemon=True).start()
        done.wait()
    for error in server.errors:
        print(error, file=sys.stderr)
    return 1 if server.errors else 0


if __name__ == "__main__":
    sys.exit(main())
