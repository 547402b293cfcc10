"""What a one-shot run (`-p`) waits for before its first request, and says on stderr.

A person who runs `agentcli -p` in a script sees only stdout and stderr, so
every server that will not help this run is said there, once:

- a server that failed to start: why;
- a server still starting after the connect wait (`MCP_CONNECT_TIMEOUT_MS`,
  5 s as in Claude Code): its name and that the run goes on without it; it
  keeps starting, up to `MCP_TIMEOUT`, and its tools join the run when it
  connects (the engine reads the tools before each request). A hung server
  costs the run the wait, not its whole start-up timeout;
- the project's `.mcp.json` servers nobody approved (never started): their
  names, in one line, and the ways to approve them.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from agentcli.mcp.status import ServerStatus

if TYPE_CHECKING:
    from agentcli.core.abort import AbortSignal
    from agentcli.mcp.manager import McpManager


async def wait_for_servers(mcp: McpManager, abort: AbortSignal) -> list[str]:
    """Wait for the started servers (at most `mcp.connect_wait_s`, less if `abort`
    fires); the warnings to print, one a line."""
    await mcp.wait_ready_unless(abort, timeout=mcp.connect_wait_s)
    return startup_warnings(mcp.status(), mcp.connect_wait_s, mcp.startup_timeout_s)


def startup_warnings(
    statuses: Iterable[ServerStatus], waited_s: float, startup_s: float
) -> list[str]:
    """Failed, still-starting and unapproved servers, in words a person can act on."""
    lines: list[str] = []
    unapproved: list[str] = []
    for server in statuses:
        if server.state == "failed":
            lines.append(f"warning: MCP server {server.name} failed: {server.error}")
        elif server.state == "pending":
            lines.append(
                f"warning: MCP server {server.name} is still starting after {_seconds(waited_s)}:"
                " the run goes on without its tools, which join when it connects (it has"
                f" {_seconds(startup_s)}, MCP_TIMEOUT; MCP_CONNECT_TIMEOUT_MS sets this wait)"
            )
        elif server.state == "needs approval":
            unapproved.append(server.name)
    if unapproved:
        lines.append(_unapproved_line(unapproved))
    return lines


def _unapproved_line(names: list[str]) -> str:
    listed = ", ".join(names)
    quoted = ", ".join(f'"{name}"' for name in names)
    one = "server" if len(names) == 1 else "servers"
    return (
        f"warning: not started: the {_whose(names)} {one} {listed}, not approved here."
        " To use them, approve them when `agentcli` asks in this folder (or in its /mcp),"
        f' or in your own settings: "enabledMcpjsonServers": [{quoted}], or'
        ' "enableAllProjectMcpServers": true (~/.agentcli/settings.json or'
        " .agentcli/settings.local.json; `agentcli mcp list` shows each server's state)"
    )


def _whose(names: list[str]) -> str:
    """Whose servers these are: the project's `.mcp.json`, a plugin's (`plugin:...`), both."""
    plugins = sum(name.startswith("plugin:") for name in names)
    if plugins == 0:
        return "project's .mcp.json"
    return "plugins'" if plugins == len(names) else "project's .mcp.json and plugins'"


def _seconds(value: float) -> str:
    return f"{value:g} s" if value < 10 else f"{value:.0f} s"
