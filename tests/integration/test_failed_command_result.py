"""A Bash command that exits non-zero is an error result, as Claude Code marks it, and
its output still reaches the model, the SDK client, and the person's pane."""

from __future__ import annotations

import json

from agentcli.frontends.tui.widgets.tool_pane import ToolPane
from agentcli.tools.bash import BashTool
from tests.engine import scripted
from tests.fakeapi import reply, text, tool_use
from tests.frontends.tui.helpers import idle, make_app, send
from tests.integration.test_headless_cli import agentcli

FAILING = "echo to-stdout; echo to-stderr >&2; exit 3"


def test_a_failed_command_is_an_error_result_the_model_still_reads(fake_api, project):
    fake_api.enqueue(reply(tool_use("Bash", {"command": FAILING})))
    fake_api.enqueue(reply(text("It failed with 3.")))
    args = ["-p", "run it", "--output-format", "stream-json", "--allowedTools", "Bash"]

    done = agentcli(args, project, fake_api)

    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    (shown,) = [
        block
        for line in lines
        if line["type"] == "user"
        for block in line["message"]["content"]
        if block["type"] == "tool_result"
    ]
    assert shown["is_error"] is True
    (sent,) = [b for b in fake_api.requests[1].body["messages"][-1]["content"]]
    assert sent["is_error"] is True
    for result in (shown["content"], sent["content"]):
        assert "to-stdout" in result and "to-stderr" in result and "Exit code: 3" in result
    assert lines[-1]["subtype"] == "success"  # a failed command does not fail the run


def test_a_succeeding_command_is_no_error(fake_api, project):
    fake_api.enqueue(reply(tool_use("Bash", {"command": "echo fine"})))
    fake_api.enqueue(reply(text("Fine.")))

    done = agentcli(["-p", "run", "--allowedTools", "Bash"], project, fake_api)

    assert done.returncode == 0, done.stderr
    assert "is_error" not in fake_api.requests[1].body["messages"][-1]["content"][0]


async def test_the_apps_pane_shows_a_failed_commands_output(tmp_path):
    provider = scripted.ScriptedProvider(
        scripted.Response([scripted.tool_use("Bash", {"command": FAILING}, "toolu_b")]),
        scripted.Response([scripted.text("It failed.")]),
    )
    app = make_app(provider, tmp_path, [BashTool()])
    async with app.run_test(size=(110, 40)) as pilot:
        await send(pilot, "run it")
        await idle(pilot, app)
        pane = app.conversation.pane("toolu_b")
        assert isinstance(pane, ToolPane) and pane.state == "failed"
        assert pane.summary.startswith("exit 3: to-stdout")
        pane.action_toggle_detail()
        await pilot.pause()
        shown = str(pane._body.render())
        assert "to-stdout" in shown and "to-stderr" in shown
