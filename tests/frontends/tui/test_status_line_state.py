"""The status line says what the turn is doing now. While a permission question is open
it gives way to the question (as in Claude Code); once the question is answered it comes
back naming the tool still running, or what the turn was doing (a custom command's `!`
line, a subagent at work), never a stale "Waiting for permission"."""

from __future__ import annotations

import asyncio
from pathlib import Path

from agentcli.agents.definitions import load_agents
from agentcli.permissions.types import PermissionMode
from agentcli.providers.anthropic import AnthropicProvider
from agentcli.providers.retry import RetryPolicy
from agentcli.tools.bash import BashTool
from agentcli.tools.write import WriteTool
from tests.engine.scripted import Probe, Response, ScriptedProvider, make_tool, text, tool_use
from tests.fakeapi import hang, reply
from tests.fakeapi import text as api_text
from tests.fakeapi import tool_use as api_tool_use
from tests.frontends.tui.helpers import idle, make_app, question_ready, send, wait_for
from tests.frontends.tui.test_agents_app import GUARD_S, task

WAITING = "Waiting for permission"


def status(app) -> str:
    return str(app.status_line.render()) if app.status_line.display else ""


async def test_a_refused_call_leaves_the_one_still_running_named(tmp_path):
    """Look runs; Peek, beside it, asks and is refused: the line names Look again."""
    looking = Probe()
    calls = [
        tool_use("Look", {"value": "a"}, "toolu_l"),
        tool_use("Peek", {"value": "b"}, "toolu_p"),
    ]
    provider = ScriptedProvider(Response(calls), Response([text("Done.")]))
    tools = [
        make_tool("Look", looking, safe=True, behaviour="wait"),
        make_tool("Peek", Probe(), safe=True),
    ]
    app = make_app(
        provider, tmp_path, tools, mode=PermissionMode.DEFAULT, engine_kw={"ask": ["Peek"]}
    )
    async with app.run_test(size=(100, 40)) as pilot:
        await send(pilot, "look and peek")
        await wait_for(pilot, lambda: question_ready(app), "the question about Peek")
        await wait_for(pilot, lambda: not app.status_line.display, "the line to give way")
        await pilot.press("n")
        await wait_for(pilot, lambda: app.permission_prompt is None, "the question to go")
        await wait_for(pilot, lambda: "Running Look" in status(app), "the line to name Look")
        assert WAITING not in status(app)
        looking.release.set()
        await idle(pilot, app)


async def test_after_a_subagents_question_the_line_names_the_running_task(fake_api, tmp_path):
    write = {"file_path": str(tmp_path / "b.py"), "content": "B = 2\n"}
    held = hang(reply(api_text("Wrote b.py.")), after_events=2)
    fake_api.enqueue(
        reply(
            api_tool_use("Task", task("general-purpose", "write b", "Write b.py."), id="toolu_k")
        ),
        reply(api_tool_use("Write", write, id="toolu_w")),
        held,
        reply(api_text("The subagent wrote b.py.")),
    )
    provider = AnthropicProvider(
        api_key="test-key", base_url=fake_api.base_url, retry=RetryPolicy(max_retries=0)
    )
    agents = {"agents": load_agents(tmp_path)}
    app = make_app(provider, tmp_path, [WriteTool()], mode=PermissionMode.DEFAULT, engine_kw=agents)
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await send(pilot, "write b")
            await wait_for(pilot, lambda: question_ready(app), "the subagent's question")
            await wait_for(pilot, lambda: not app.status_line.display, "the line to give way")
            await pilot.press("1")
            await asyncio.to_thread(held.reached.wait, GUARD_S)  # the subagent works on
            await wait_for(pilot, lambda: "Running Task" in status(app), "the line: Task")
            assert WAITING not in status(app)
            held.release()
            await idle(pilot, app)
            assert (tmp_path / "b.py").exists()
    finally:
        await provider.aclose()


async def test_after_a_commands_shell_line_is_allowed_the_line_stops_waiting(tmp_path):
    """An untrusted folder's command asks before its `!` line; while that line runs
    (until the test lets it finish), the question is over and the line says so."""
    root: Path = tmp_path / "repo"
    commands = root / ".claude" / "commands"
    commands.mkdir(parents=True)
    (commands / "slow.md").write_text(
        "Output: !`until [ -e go ]; do sleep 0.01; done; echo ready`\n"
    )
    provider = ScriptedProvider(Response([text("Seen.")]))
    app = make_app(provider, root, [BashTool()], mode=PermissionMode.DEFAULT)
    async with app.run_test(size=(100, 40)) as pilot:
        await wait_for(pilot, lambda: "slow" in app.registry, "the command files")
        await send(pilot, "/slow")
        await wait_for(pilot, lambda: question_ready(app), "the question about the line")
        await wait_for(pilot, lambda: not app.status_line.display, "the line to give way")
        await pilot.press("1")
        await wait_for(pilot, lambda: app.permission_prompt is None, "the question to go")
        await wait_for(pilot, lambda: status(app) and WAITING not in status(app), "the line")
        assert provider.requests == []  # the `!` line is still running
        (root / "go").write_text("")
        await idle(pilot, app)
        assert "ready" in repr(provider.requests[0].messages[0]["content"])
