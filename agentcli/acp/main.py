"""`agentcli --acp`: serve the Agent Client Protocol on stdin/stdout until the client leaves.

stdout carries the protocol only; everything for a person (warnings, logs)
goes to stderr, which editors keep as the agent's log. The process ends
when the client closes stdin, after each session's SessionEnd hooks and
transcript are closed; SIGTERM does the same.
"""

from __future__ import annotations

import asyncio
import logging
import signal
import sys
from pathlib import Path
from typing import Any


def main(args: Any) -> int:
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING)
    try:
        asyncio.run(_serve(args))
    except KeyboardInterrupt:
        return 130
    return 0


async def _serve(args: Any) -> None:
    from agentcli.acp.agent import AcpAgent
    from agentcli.acp.rpc import Connection, stdio_streams
    from agentcli.bootstrap import Options

    reader, writer = await stdio_streams()
    connection = Connection(reader, writer)
    agent = AcpAgent(Options.from_args(args, Path.cwd()), connection)
    connection.routes(agent.requests(), agent.notifications())
    serving = asyncio.ensure_future(connection.serve())
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, serving.cancel)
    try:
        await serving
    except asyncio.CancelledError:
        pass
    finally:
        await agent.close()
