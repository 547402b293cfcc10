"""A small MCP server for the tests, written with the SDK (what it offers: server_app.py).

    python -m tests.mcp.server [--http | --sse] [--legacy] [--delay S] [--fail-at-start]
        [--ignore-sigterm]

Over stdio by default. With --http (streamable HTTP) or --sse it serves on
127.0.0.1 on a free port, prints `MCP_URL=<url>` (one flushed line) and
serves until its stdin reaches EOF or a signal ends it. --legacy refuses
`server/discover`, so clients fall back to the handshake era (2025-11-25)
and list changes travel as notifications. --delay waits before serving
(deaf to its stdin's EOF meanwhile); --ignore-sigterm makes it deaf to
SIGTERM too (only SIGKILL ends it); --fail-at-start writes to stderr and
exits 1.

The SDK is imported only once the server is about to serve: importing it is most of
a server's start (some 0.7 s of CPU), and a server that fails at start or waits
first looks the same to a client without paying that.
"""

from __future__ import annotations

import argparse
import signal
import sys
import time


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--http", action="store_true")
    parser.add_argument("--sse", action="store_true")
    parser.add_argument("--legacy", action="store_true")
    parser.add_argument("--delay", type=float, default=0.0)
    parser.add_argument("--fail-at-start", action="store_true")
    parser.add_argument("--ignore-sigterm", action="store_true")
    parser.add_argument("--tag", default="", help="ignored: lets a test find this process")
    args = parser.parse_args()
    if args.fail_at_start:
        print("cannot start: the config file is missing", file=sys.stderr, flush=True)
        sys.exit(1)
    if args.ignore_sigterm:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    if args.delay:
        time.sleep(args.delay)
    from tests.mcp.server_app import serve

    serve(http=args.http, sse=args.sse, legacy=args.legacy)


if __name__ == "__main__":
    main()
