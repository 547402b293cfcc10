"""`/mcp`: the session's MCP servers, on a screen of the app's (`CommandHost.show_mcp_servers`).

With no server configured it says how to add one, and names any
configuration file or entry that could not be used (those would otherwise
explain why a server the person expected is missing).
"""

from __future__ import annotations

from agentcli.commands.registry import NOT_READY, CommandContext, command
from agentcli.commands.settings_report import md

NO_SERVERS = (
    "No MCP server is configured. Add one with `agentcli mcp add NAME -- COMMAND [ARGS...]` "
    "(or `--transport http NAME URL`), or in the project's `.mcp.json`."
)


@command("mcp", "Show the MCP servers and their tools; reconnect, disable or approve one")
async def mcp_command(ctx: CommandContext) -> None:
    if ctx.engine is None:
        ctx.error(NOT_READY)
        return
    manager = ctx.engine.mcp
    if manager is None or not manager.configured:
        problems = manager.problems if manager is not None else []
        listed = "".join(f"\n- {md(problem)}" for problem in problems)
        ctx.output(NO_SERVERS + (f"\n\nNot used:{listed}" if problems else ""))
        return
    ctx.app().show_mcp_servers(manager)
