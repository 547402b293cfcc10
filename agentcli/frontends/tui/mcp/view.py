"""How MCP servers read on screen: a row per server, its details, what it would run.

Plain functions from the manager's data (agentcli/mcp/status.py, the
configured servers) to rich `Text`, shared by `/mcp` and the start-up
approval question. Everything here comes from outside (a repository's
`.mcp.json`, a server's names, descriptions and stderr), so each piece is
shown with its controls as symbols: nothing in it reaches the terminal.
Environment values and header values are never shown (they hold tokens);
their names are.
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from typing import TYPE_CHECKING

from rich.text import Text

from agentcli.core.terminal_text import terminal_text, visible_controls
from agentcli.mcp.config.specs import SDK_SERVER

if TYPE_CHECKING:
    from agentcli.mcp.config.servers import ConfiguredServer
    from agentcli.mcp.status import PromptInfo, ResourceInfo, ServerStatus
    from agentcli.mcp.tools import ToolSpec

STATES = {  # state: (mark, words, style)
    "connected": ("✔", "connected", "green"),
    "pending": ("…", "connecting", "yellow"),
    "failed": ("✘", "failed", "red"),
    "needs approval": ("?", "needs approval", "yellow"),
    "disabled": ("○", "disabled", "dim"),
}
DESCRIPTION_CHARS = 80
NAME_CHARS = 40  # names are padded to the longest in a listing, up to this


def state_text(state: str) -> Text:
    mark, words, style = STATES.get(state, ("·", state, ""))
    return Text(f"{mark} {words}", style=style)


def server_row(status: ServerStatus, width: int) -> Text:
    """`name  ✔ connected  local · stdio · 9 tools`."""
    text = Text(visible_controls(status.name).ljust(width), style="bold")
    text.append("  ")
    text.append_text(state_text(status.state))
    facts = [status.scope, status.transport]
    if status.state == "connected":
        facts.append(_count(status.tools, "tool"))
    text.append("  " + " · ".join(facts), style="dim")
    return text


def runs(server: ConfiguredServer) -> str:
    """What the server is: the command line it starts, or the URL it is reached at."""
    spec = server.spec
    if spec.type == "stdio":
        line = shlex.join([spec.command, *spec.args])
        names = ", ".join(sorted(spec.env))
        return visible_controls(line + (f"  (env: {names})" if names else ""))
    if spec.type == "sdk":
        return SDK_SERVER
    names = ", ".join(sorted(spec.headers))
    return visible_controls(f"{spec.url}" + (f"  (headers: {names})" if names else ""))


def details(
    status: ServerStatus,
    server: ConfiguredServer | None,
    tools: Sequence[ToolSpec],
    prompts: Sequence[PromptInfo],
    resources: Sequence[ResourceInfo],
) -> Text:
    """Everything `/mcp` knows about one server."""
    text = Text(visible_controls(status.name), style="bold")
    text.append("  ")
    text.append_text(state_text(status.state))
    text.append("\n")
    source = f" ({visible_controls(server.source)})" if server is not None else ""
    _fact(text, "Scope", f"{status.scope}{source}")
    if server is not None:
        _fact(text, "Runs" if status.transport == "stdio" else "URL", runs(server))
    if status.server_info:
        _fact(text, "Server", visible_controls(status.server_info))
    if status.error:
        _fact(text, "Error", visible_controls(status.error), style="red")
    if status.stderr_tail.strip():
        text.append("Stderr, last lines:\n", style="bold")
        text.append_text(terminal_text(_indented(status.stderr_tail), style="dim"))
        text.append("\n")
    if status.state == "needs approval":
        text.append("From the project's .mcp.json: it starts only once you approve it.\n")
    _listing(text, "Tools", [(t.name, t.description) for t in tools])
    _listing(text, "Prompts", [(_prompt_usage(p), p.description) for p in prompts])
    _listing(text, "Resources", [(r.uri, r.description or r.name) for r in resources])
    return text


def _prompt_usage(prompt: PromptInfo) -> str:
    from agentcli.commands.mcp_prompts import argument_hint, command_name

    hint = argument_hint(prompt)
    return f"/{command_name(prompt.server, prompt.name)}" + (f" {hint}" if hint else "")


def _fact(text: Text, label: str, value: str, style: str = "") -> None:
    text.append(f"{label + ':':<8}", style="bold")
    text.append(f"{value}\n", style=style)


def _listing(text: Text, title: str, items: list[tuple[str, str]]) -> None:
    if not items:
        return
    text.append(f"{title} ({len(items)})\n", style="bold")
    width = min(NAME_CHARS, max(len(name) for name, _ in items))
    for name, description in items:
        text.append(f"  {visible_controls(name):<{width}}")
        about = _first_line(description)
        if about:
            text.append(f"  {visible_controls(about)}", style="dim")
        text.append("\n")


def _first_line(text: str) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= DESCRIPTION_CHARS else line[: DESCRIPTION_CHARS - 1] + "…"


def _indented(text: str) -> str:
    return "\n".join(f"  {line}" for line in text.rstrip().splitlines())


def _count(count: int, word: str) -> str:
    return f"{count} {word}{'s' if count != 1 else ''}"
