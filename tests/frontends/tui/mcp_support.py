"""The app with real MCP servers behind it: the test server (tests/mcp/server.py) over
stdio, a real McpManager (the `mcp_manager` fixture, closed after the test).

`mcp_app()` gives the manager to the engine as bootstrap does; `project_servers()`
writes a project's `.mcp.json` whose servers are the test server, and
`project_manager()` loads them as the app would in a trusted folder (each waiting
for approval until the person says yes). `KeptOpen` is a manager the app's ending
leaves open, for the `shared_test_server` fixture of tests/frontends/tui/conftest.py.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from agentcli.frontends.tui.app import AgentApp
from agentcli.frontends.tui.screens.mcp_approval import McpApprovalQuestion
from agentcli.frontends.tui.screens.mcp_servers import McpServersScreen
from agentcli.frontends.tui.widgets.conversation import Note
from agentcli.mcp.config.servers import load_mcp_servers
from agentcli.mcp.manager import McpManager
from tests.frontends.tui.helpers import make_app, send, wait_for
from tests.mcp.support import REPO


class KeptOpen(McpManager):
    """A real manager that stays open when an app it was given ends, so a module's tests
    can share one server (starting one is some 2 s of CPU, most of it the SDK's import):
    the app closes its engine's servers as it unmounts, and here only `close_now` does.
    For tests that change neither the server nor the connection."""

    async def close(self) -> None:
        """Left open: the fixture that made it closes it (`close_now`)."""

    async def close_now(self) -> None:
        await super().close()


def mcp_app(provider: Any, root: Path, manager: McpManager, **kwargs: Any) -> AgentApp:
    return make_app(provider, root, engine_kw={"mcp": manager}, **kwargs)


def question_shown(app: AgentApp) -> McpApprovalQuestion | None:
    """The approval question once it is on screen with its words: a pushed screen is
    not composed yet, and a key pressed then is not the question's."""
    screen = app.screen
    if isinstance(screen, McpApprovalQuestion) and screen.query("#mcp-question"):
        return screen
    return None


def project_servers(project: Path, *names: str) -> None:
    """`.mcp.json` in `project`, each of `names` the test server over stdio."""
    entry = {
        "command": sys.executable,
        "args": ["-m", "tests.mcp.server"],
        "env": {"PYTHONPATH": str(REPO)},
    }
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": dict.fromkeys(names, entry)}))


def project_manager(make: Any, project: Path) -> McpManager:
    """The manager of a session in the trusted `project` (from `mcp_manager`)."""
    return make(*load_mcp_servers(project, trusted=True).servers.values())


async def open_servers_screen(pilot: Any, app: AgentApp) -> McpServersScreen:
    await send(pilot, "/mcp")
    return await wait_for(  # type: ignore[no-any-return]
        pilot, lambda: isinstance(app.screen, McpServersScreen) and app.screen, "/mcp"
    )


def shown(screen: McpServersScreen) -> str:
    """What the screen says: the rows, the highlighted server's details, the keys."""
    rows = [str(option.prompt) for option in screen.query_one("#mcp-list").options]  # type: ignore[attr-defined]
    parts = [str(screen.query_one(f"#{part}").render()) for part in _PARTS]
    return "\n".join([*rows, *parts])


_PARTS = ("mcp-problems", "mcp-details", "mcp-keys", "mcp-message")


def notes(app: AgentApp) -> list[str]:
    return [str(note.render()) for note in app.conversation.query(Note)]
