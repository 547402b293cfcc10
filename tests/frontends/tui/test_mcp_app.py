"""The app starts the MCP servers after its first frame and ends them when it exits."""

from __future__ import annotations

import json
import uuid

from agentcli.cli.main import build_parser
from agentcli.frontends.tui.app import AgentApp
from agentcli.frontends.tui.widgets.conversation import Note
from tests.frontends.tui.helpers import PROCESS_WAIT_LIMIT_S, texts, wait_for
from tests.mcp.support import REPO, TEST_SERVER, tagged_processes


def configure(home, **servers) -> None:
    settings = home / ".agentcli" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(json.dumps({"mcpServers": servers}))


def server_entry(*args: str) -> dict:
    return {
        "command": TEST_SERVER[0],
        "args": [*TEST_SERVER[1:], *args],
        "env": {"PYTHONPATH": str(REPO)},
    }


async def test_the_servers_tools_reach_the_engine_and_their_processes_end_with_the_app(
    tmp_path, isolated_home, monkeypatch
):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")  # the provider builds; nothing is sent
    tag = uuid.uuid4().hex
    configure(
        isolated_home, files=server_entry("--tag", tag), broken=server_entry("--fail-at-start")
    )
    app = AgentApp(build_parser().parse_args([]), cwd=tmp_path, remember_theme=False)

    async with app.run_test() as pilot:
        await wait_for(
            pilot,
            lambda: app.engine and "mcp__files__echo" in app.engine.visible_tools().names(),
            "the server's tools",
            PROCESS_WAIT_LIMIT_S,
        )
        await wait_for(
            pilot,
            lambda: any("MCP server broken failed" in note for note in texts(app, Note)),
            "the note that a server failed",
            PROCESS_WAIT_LIMIT_S,
        )
        assert tagged_processes(tag)

    assert tagged_processes(tag) == []
