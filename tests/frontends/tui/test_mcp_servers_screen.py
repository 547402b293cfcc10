"""`/mcp`: the servers with their state, what each offers, and the keys that act on them.

Every server here is the real test server over stdio behind a real McpManager.
"""

from __future__ import annotations

import re

from agentcli.mcp.config.approval import ProjectApprovals
from agentcli.mcp.config.servers import load_mcp_servers
from tests.engine.scripted import ScriptedProvider
from tests.frontends.tui.helpers import send, wait_for
from tests.frontends.tui.mcp_support import (
    mcp_app,
    notes,
    open_servers_screen,
    project_manager,
    project_servers,
    question_shown,
    shown,
)
from tests.frontends.tui.test_completion_and_commands import last_output
from tests.mcp.support import run_tool, state_of, stdio, tool_named


async def test_mcp_lists_each_server_with_its_state_scope_and_tools(tmp_path, mcp_manager):
    manager = mcp_manager(stdio("files"), stdio("broken", "--fail-at-start", scope="user"))
    await manager.start()
    await manager.wait_ready()
    app = mcp_app(ScriptedProvider(), tmp_path, manager)
    async with app.run_test(size=(120, 50)) as pilot:
        screen = await open_servers_screen(pilot, app)

        text = shown(screen)
        assert "files" in text and "✔ connected  local · stdio · 9 tools" in text
        assert "broken" in text and "✘ failed  user · stdio" in text
        assert "Scope:  local (test)" in text
        assert "Server: agentcli-test 1.0" in text
        assert re.search(r"echo +Say the text back\.", text)
        assert re.search(r"peek +Look at something", text)
        assert "/mcp__files__review <topic>  Ask for a review of a topic." in text
        assert re.search(r"test://greeting +a friendly word", text)

        await pilot.press("down")
        text = shown(screen)
        assert "broken  ✘ failed" in text
        assert "Error:" in text and "Stderr, last lines:" in text
        assert "cannot start: the config file is missing" in text
        assert "r reconnect · d disable" in text
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is app.screen_stack[0], "the screen to close")


async def test_a_server_that_died_shows_why_and_reconnects_with_r(tmp_path, mcp_manager):
    manager = mcp_manager(stdio("fragile"))
    await manager.start()
    await manager.wait_ready()
    app = mcp_app(ScriptedProvider(), tmp_path, manager)
    async with app.run_test(size=(120, 50)) as pilot:
        await run_tool(tool_named(manager, "mcp__fragile__crash"), {})
        await wait_for(pilot, lambda: state_of(manager, "fragile").state == "failed", "failure")
        await wait_for(pilot, lambda: any("fragile failed" in n for n in notes(app)), "a note")
        screen = await open_servers_screen(pilot, app)
        assert "the server process exited" in shown(screen)
        assert "about to crash: out of cheese" in shown(screen)

        await pilot.press("r")

        await wait_for(pilot, lambda: state_of(manager, "fragile").state == "connected", "back")
        await wait_for(pilot, lambda: "✔ connected" in shown(screen), "the row to follow")
        assert re.search(r"echo +Say the text back\.", shown(screen))


async def test_d_disables_a_server_for_the_session_and_e_enables_it(tmp_path, mcp_manager):
    manager = mcp_manager(stdio("tools"))
    await manager.start()
    await manager.wait_ready()
    app = mcp_app(ScriptedProvider(), tmp_path, manager)
    async with app.run_test(size=(120, 50)) as pilot:
        screen = await open_servers_screen(pilot, app)

        await pilot.press("d")

        await wait_for(pilot, lambda: state_of(manager, "tools").state == "disabled", "disabled")
        await wait_for(pilot, lambda: "○ disabled" in shown(screen), "the row")
        assert "Disabled tools for this session." in shown(screen)
        assert "e enable" in shown(screen)
        assert not re.search(r"echo +Say the text back\.", shown(screen))  # its tools are gone
        assert not [t for t in manager.tools() if t.name.startswith("mcp__tools__")]
        assert "mcp__tools__review" not in app.registry  # its prompt went with it

        await pilot.press("e")

        await wait_for(pilot, lambda: state_of(manager, "tools").state == "connected", "enabled")
        await wait_for(pilot, lambda: "mcp__tools__review" in app.registry, "the prompt back")


async def test_a_key_that_does_not_apply_says_so_and_changes_nothing(tmp_path, mcp_manager):
    manager = mcp_manager(stdio("steady"))
    await manager.start()
    await manager.wait_ready()
    app = mcp_app(ScriptedProvider(), tmp_path, manager)
    async with app.run_test(size=(120, 50)) as pilot:
        screen = await open_servers_screen(pilot, app)

        await pilot.press("a")

        assert "steady is connected: it cannot be approved now." in shown(screen)
        assert state_of(manager, "steady").state == "connected"


async def test_a_pending_project_server_is_approved_from_mcp_and_connects(tmp_path, mcp_manager):
    project_servers(tmp_path, "shared")
    manager = project_manager(mcp_manager, tmp_path)
    await manager.start()
    app = mcp_app(ScriptedProvider(), tmp_path, manager)
    async with app.run_test(size=(120, 50)) as pilot:
        await wait_for(pilot, lambda: question_shown(app), "the question")
        await pilot.press("escape")  # decide later
        screen = await open_servers_screen(pilot, app)
        assert "? needs approval  project · stdio" in shown(screen)
        assert f"Runs:   {manager.configured['shared'].spec.command} -m tests.mcp.server" in (
            shown(screen)
        )
        assert "a approve · n reject" in shown(screen)

        await pilot.press("a")

        await wait_for(pilot, lambda: state_of(manager, "shared").state == "connected", "connect")
        await wait_for(pilot, lambda: "✔ connected" in shown(screen), "the row")
        approvals = ProjectApprovals.of(tmp_path)
        assert approvals.state("shared", _written_spec(tmp_path, "shared")) == "approved"


async def test_a_pending_project_server_rejected_from_mcp_is_gone_and_remembered(
    tmp_path, mcp_manager
):
    project_servers(tmp_path, "shared", "other")
    manager = project_manager(mcp_manager, tmp_path)
    await manager.start()
    app = mcp_app(ScriptedProvider(), tmp_path, manager)
    async with app.run_test(size=(120, 50)) as pilot:
        await wait_for(pilot, lambda: question_shown(app), "the question")
        await pilot.press("escape")
        screen = await open_servers_screen(pilot, app)

        await pilot.press("n")

        await wait_for(pilot, lambda: "Rejected shared" in shown(screen), "the answer")
        assert "shared" not in [s.name for s in manager.status()]
        assert "other  ? needs approval" in shown(screen)
        assert set(load_mcp_servers(tmp_path, trusted=True).servers) == {"other"}


async def test_mcp_with_no_server_says_how_to_add_one(tmp_path):
    app = mcp_app(ScriptedProvider(), tmp_path, None)  # type: ignore[arg-type]
    async with app.run_test() as pilot:
        await send(pilot, "/mcp")
        await wait_for(pilot, lambda: "agentcli mcp add" in last_output(app), "the answer")


def _written_spec(project, name):
    from agentcli.mcp.config.files import read_server_file

    return read_server_file(project / ".mcp.json").servers[name]
