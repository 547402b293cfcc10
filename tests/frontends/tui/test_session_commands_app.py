"""/memory and /init in the app, through the real bootstrap (memory files read from disk)."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Markdown

from agentcli.cli.main import build_parser
from agentcli.commands.session_commands import INIT_PROMPT
from agentcli.frontends.tui.app import AgentApp
from tests.engine.scripted import Response, ScriptedProvider, text
from tests.frontends.tui.helpers import idle, send, wait_for


def open_app(project: Path) -> AgentApp:
    return AgentApp(build_parser().parse_args([]), cwd=project, load_provider=False)


def command_outputs(app: AgentApp) -> list[str]:
    return [w.source for w in app.conversation.query(Markdown) if w.has_class("-command")]


async def test_memory_lists_the_loaded_files_and_their_imports(tmp_path):
    project = tmp_path / "project"
    (project / "docs").mkdir(parents=True)
    (project / "AGENTS.md").write_text("Run tests with make test.\n@docs/style.md\n")
    (project / "docs" / "style.md").write_text("Use four spaces.\n")

    app = open_app(project)
    async with app.run_test(size=(110, 40)) as pilot:
        await wait_for(pilot, lambda: app.engine is not None and app.commands_loaded)
        system = "\n".join(block["text"] for block in app.engine.system)
        assert "Run tests with make test." in system and "Use four spaces." in system

        await send(pilot, "/memory")
        output = await wait_for(pilot, lambda: command_outputs(app), "the /memory output")

    assert str(project / "AGENTS.md") in output[-1]
    assert str(project / "docs" / "style.md") in output[-1] and "imported" in output[-1]


async def test_init_asks_the_model_to_write_agents_md(tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    (project / "README.md").write_text("# demo\n")

    app = open_app(project)
    async with app.run_test(size=(110, 40)) as pilot:
        await wait_for(pilot, lambda: app.engine is not None and app.commands_loaded)
        provider = ScriptedProvider(Response([text("I'll study it.")]))
        app.engine.connect(provider)
        await send(pilot, "/init")
        await wait_for(pilot, lambda: provider.requests, "the model request")
        await idle(pilot, app)

    prompt = provider.requests[0].messages[-1]["content"][0]["text"]
    assert prompt == INIT_PROMPT and "AGENTS.md" in prompt
