"""How long agentcli waits for MCP servers, read from the environment.

Claude Code's names, in milliseconds:

| variable | what it bounds | default |
| --- | --- | --- |
| `MCP_TIMEOUT` | a server's start-up: spawn or connect, handshake, first listings | 30000 |
| `MCP_CONNECT_TIMEOUT_MS` | how long `-p` waits for its servers before the first request | 5000 |
| `MCP_TOOL_TIMEOUT` | one tool call (then it ends with an error result) | 100000000 |

A server still starting when `-p` stops waiting goes on starting, up to
`MCP_TIMEOUT`, and its tools join the run when it connects: one slow or hung
server costs a run at most the connect wait (Claude Code bounds its wait for
servers the same way, at 5 s), not its whole start-up timeout.

The tool-call default is Claude Code's: long enough never to cut a slow but
working tool (a build, a crawl); Esc ends any call at once. A malformed value
becomes one line in `problems` and the default is used.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from dataclasses import dataclass

STARTUP_TIMEOUT_MS = 30_000
CONNECT_WAIT_MS = 5_000
TOOL_TIMEOUT_MS = 100_000_000


@dataclass(frozen=True, slots=True)
class McpTimeouts:
    startup_s: float = STARTUP_TIMEOUT_MS / 1000
    tool_s: float = TOOL_TIMEOUT_MS / 1000
    problems: tuple[str, ...] = ()
    connect_wait_s: float = CONNECT_WAIT_MS / 1000  # -p's wait for its servers

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> McpTimeouts:
        env = os.environ if env is None else env
        problems: list[str] = []
        startup = _millis(env, "MCP_TIMEOUT", STARTUP_TIMEOUT_MS, problems)
        tool = _millis(env, "MCP_TOOL_TIMEOUT", TOOL_TIMEOUT_MS, problems)
        wait = _millis(env, "MCP_CONNECT_TIMEOUT_MS", CONNECT_WAIT_MS, problems)
        return cls(startup / 1000, tool / 1000, tuple(problems), min(wait, startup) / 1000)


def _millis(env: Mapping[str, str], name: str, default: int, problems: list[str]) -> float:
    raw = env.get(name, "").strip()
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value <= 0:
        problems.append(f"{name}={raw!r} is not a number of milliseconds above 0; using {default}")
        return default
    return value
