"""MCP tool calls in the app: asked about, run on the real server, shown in tool panes
like the built-in tools' calls."""

from __future__ import annotations

import pytest
from textual.widgets import Static

from agentcli.frontends.tui.widgets.tool_pane import ToolPane
from agentcli.permissions.types import PermissionMode
from tests.engine.scripted import Response, ScriptedProvider, text, tool_use
from tests.frontends.tui.helpers import idle, question_ready, send, wait_for
from tests.frontends.tui.mcp_support import mcp_app

# The calls change neither the server nor the connection: one server for the module.
shared = pytest.mark.asyncio(loop_scope="module")


@shared
async def test_an_mcp_call_is_asked_about_then_shown_in_its_pane(tmp_path, shared_test_server):
    manager = shared_test_server
    provider = ScriptedProvider(
        Response([tool_use("mcp__test__echo", {"text": "hi there"}, "toolu_echo")]),
        Response([text("It said hi.")]),
    )
    app = mcp_app(provider, tmp_path, manager, mode=PermissionMode.DEFAULT)
    async with app.run_test(size=(110, 40)) as pilot:
        await send(pilot, "say hi")
        prompt = await wait_for(pilot, lambda: question_ready(app), "the question")
        title = str(prompt.query_one(".permission-title", Static).render())
        assert title == "Use mcp__test__echo"
        pane = app.conversation.pane("toolu_echo")
        assert pane is not None and pane.state == "waiting"
        assert pane.label == 'mcp__test__echo(text: "hi there")'

        await pilot.press("1")
        await idle(pilot, app)

        assert pane.state == "done" and pane.summary == "hi there"
        [result] = provider.requests[1].messages[-1]["content"]
        assert result["type"] == "tool_result" and result["content"] == [text("hi there")]


@shared
async def test_a_pane_says_what_came_back_besides_text(tmp_path, shared_test_server):
    manager = shared_test_server
    provider = ScriptedProvider(
        Response(
            [
                tool_use("mcp__test__picture", {}, "toolu_pic"),
                tool_use("mcp__test__document", {}, "toolu_doc"),
                tool_use("mcp__test__fail", {}, "toolu_fail"),
            ]
        ),
        Response([text("Done.")]),
    )
    app = mcp_app(provider, tmp_path, manager)
    async with app.run_test(size=(110, 40)) as pilot:
        await send(pilot, "look")
        await idle(pilot, app)

        panes = {pane.tool_use_id: pane for pane in app.conversation.query(ToolPane)}
        assert panes["toolu_pic"].summary == "A red dot. (+2 lines) · 1 image"
        assert panes["toolu_doc"].summary.endswith("(+1 lines) · 2 resources")
        assert panes["toolu_fail"].state == "failed"
        assert panes["toolu_fail"].summary == "Error executing tool fail: the disk is full"
