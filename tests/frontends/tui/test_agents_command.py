"""`/agents` and agent files in the app, through the real bootstrap (files read from disk)."""

from __future__ import annotations

from textual.widgets import Markdown

from agentcli.cli.main import build_parser
from agentcli.frontends.tui.app import AgentApp
from tests.frontends.tui.helpers import send, wait_for


def command_outputs(app: AgentApp) -> list[str]:
    return [w.source for w in app.conversation.query(Markdown) if w.has_class("-command")]


def notes(app: AgentApp) -> list[str]:
    return [str(n.render()) for n in app.conversation.query(".note")]


async def test_agents_lists_built_in_and_file_agents_and_says_why_a_file_was_skipped(tmp_path):
    project = tmp_path / "project"
    agents = project / ".claude" / "agents"
    agents.mkdir(parents=True)
    (agents / "reviewer.md").write_text(
        "---\nname: reviewer\ndescription: Reviews a change.\ntools: [Read, Grep]\n"
        "model: sonnet\n---\nReview the change you are given.\n"
    )
    (agents / "broken.md").write_text("---\nname: broken\n---\nNo description.\n")

    app = AgentApp(build_parser().parse_args([]), cwd=project, load_provider=False)
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_for(pilot, lambda: app.engine is not None and app.commands_loaded)
        skipped = f"{agents / 'broken.md'}: the front matter has no 'description'"
        await wait_for(pilot, lambda: any(skipped in n for n in notes(app)), "the start-up notice")
        task = app.engine.tools.get("Task")
        assert "- reviewer: Reviews a change. (Tools: Read, Grep)" in task.description

        await send(pilot, "/agents")
        output = (await wait_for(pilot, lambda: command_outputs(app), "the /agents output"))[-1]

    assert "`general-purpose`" in output and "`Explore`" in output
    assert "`reviewer` — Reviews a change. (Read, Grep · model `claude-sonnet-5-5`;" in output
    assert str(agents / "reviewer.md") in output
    assert skipped in output
