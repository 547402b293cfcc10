"""A project's new `.mcp.json` servers: asked about once on start, the answer remembered.

The servers are the real test server over stdio; the answers are read back the way
the next start reads them (mcp/config/servers.py), so "remembered" means what the
person relies on: the same question is not asked again, and a no stays a no.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

from agentcli.frontends.tui.app import AgentApp
from agentcli.frontends.tui.screens.trust_question import TrustQuestion
from agentcli.mcp.config.servers import load_mcp_servers
from tests.engine.scripted import ScriptedProvider
from tests.frontends.tui.helpers import PROCESS_WAIT_LIMIT_S, wait_for
from tests.frontends.tui.mcp_support import (
    mcp_app,
    notes,
    project_manager,
    project_servers,
    question_shown,
)
from tests.mcp.support import state_of


def approved_next_time(project: Path) -> dict[str, bool]:
    """What the next start in `project` loads: server -> approved."""
    servers = load_mcp_servers(project, trusted=True).servers
    return {name: server.approved for name, server in servers.items()}


async def test_use_all_starts_every_new_server_and_is_not_asked_again(tmp_path, mcp_manager):
    project_servers(tmp_path, "alpha", "beta")
    manager = project_manager(mcp_manager, tmp_path)
    await manager.start()
    app = mcp_app(ScriptedProvider(), tmp_path, manager)
    async with app.run_test(size=(120, 40)) as pilot:
        question = await wait_for(pilot, lambda: question_shown(app), "the question")
        words = str(question.query_one("#mcp-question").render())
        assert "New MCP servers found in .mcp.json" in words
        assert "alpha" in words and "beta" in words and "-m tests.mcp.server" in words
        assert "(env: PYTHONPATH)" in words  # the names of its variables, not their values

        await pilot.press("1")

        await wait_for(
            pilot,
            lambda: all(s.state == "connected" for s in manager.status()),
            "up",
            PROCESS_WAIT_LIMIT_S,
        )
        assert "Using MCP servers alpha, beta." in notes(app)
    assert approved_next_time(tmp_path) == {"alpha": True, "beta": True}

    again = project_manager(mcp_manager, tmp_path)
    app = mcp_app(ScriptedProvider(), tmp_path, again)
    async with app.run_test() as pilot:
        await wait_for(pilot, lambda: app.state.mcp_link is not None, "the servers followed")
        assert question_shown(app) is None


async def test_choose_starts_the_ticked_servers_and_rejects_the_rest(tmp_path, mcp_manager):
    project_servers(tmp_path, "alpha", "beta")
    manager = project_manager(mcp_manager, tmp_path)
    await manager.start()
    app = mcp_app(ScriptedProvider(), tmp_path, manager)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: question_shown(app), "the question")
        await pilot.press("2")
        await pilot.press("down", "space")  # beta
        await pilot.press("enter")

        await wait_for(
            pilot,
            lambda: state_of(manager, "beta").state == "connected",
            "beta up",
            PROCESS_WAIT_LIMIT_S,
        )
        assert [s.name for s in manager.status()] == ["beta"]
    assert approved_next_time(tmp_path) == {"beta": True}


async def test_none_starts_nothing_and_is_remembered(tmp_path, mcp_manager):
    project_servers(tmp_path, "alpha", "beta")
    manager = project_manager(mcp_manager, tmp_path)
    await manager.start()
    app = mcp_app(ScriptedProvider(), tmp_path, manager)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: question_shown(app), "the question")

        await pilot.press("3")

        await wait_for(pilot, lambda: any("Not using MCP servers" in n for n in notes(app)), "note")
        assert manager.status() == [] and manager.tools() == []
    assert approved_next_time(tmp_path) == {}


async def test_escape_decides_later_remembering_nothing(tmp_path, mcp_manager):
    project_servers(tmp_path, "alpha")
    manager = project_manager(mcp_manager, tmp_path)
    await manager.start()
    app = mcp_app(ScriptedProvider(), tmp_path, manager)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: question_shown(app), "the question")

        await pilot.press("escape")

        await wait_for(pilot, lambda: question_shown(app) is None, "the question to close")
        assert any("/mcp to approve them" in n for n in notes(app))
        assert state_of(manager, "alpha").state == "needs approval"
    assert approved_next_time(tmp_path) == {"alpha": False}


async def test_keys_typed_before_the_question_could_be_read_are_ignored(tmp_path, mcp_manager):
    project_servers(tmp_path, "alpha")
    manager = project_manager(mcp_manager, tmp_path)
    await manager.start()
    app = mcp_app(ScriptedProvider(), tmp_path, manager, guard_s=60.0)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: question_shown(app), "the question")

        await pilot.press("1", "y", "enter")

        assert (
            question_shown(app) is not None and state_of(manager, "alpha").state == "needs approval"
        )
        await pilot.press("escape")  # never guarded: it starts nothing
        await wait_for(pilot, lambda: question_shown(app) is None, "the question to close")


def _args() -> SimpleNamespace:
    return SimpleNamespace(
        model=None,
        permission_mode=None,
        allowed_tools=None,
        disallowed_tools=None,
        add_dirs=[],
        max_turns=None,
    )


def _cloned(project: Path) -> None:
    """A repository with settings that need the folder's trust, and an `.mcp.json`."""
    (project / ".agentcli").mkdir(parents=True)
    settings = {"env": {"FROM_THE_REPO": "1"}}
    (project / ".agentcli" / "settings.json").write_text(json.dumps(settings))
    project_servers(project, "shared")


async def test_in_a_new_folder_the_question_comes_after_folder_trust(tmp_path):
    _cloned(tmp_path)
    app = AgentApp(
        _args(), cwd=tmp_path, load_provider=False, remember_theme=False, permission_guard_s=0
    )
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await wait_for(pilot, lambda: isinstance(app.screen, TrustQuestion), "trust")
            assert app.engine is None  # nothing from the project yet, its servers included
            await pilot.press("1")

            await wait_for(pilot, lambda: question_shown(app), "the MCP question")
            await pilot.press("1")

            manager = app.built_engine().mcp
            assert manager is not None
            await wait_for(
                pilot,
                lambda: state_of(manager, "shared").state == "connected",
                "the server",
                PROCESS_WAIT_LIMIT_S,
            )
    finally:
        if app.engine is not None and app.engine.mcp is not None:
            await app.engine.mcp.close()


async def test_in_a_folder_not_trusted_its_servers_are_not_even_asked_about(tmp_path):
    _cloned(tmp_path)
    app = AgentApp(
        _args(), cwd=tmp_path, load_provider=False, remember_theme=False, permission_guard_s=0
    )
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, TrustQuestion), "trust")
        await pilot.press("2")

        await wait_for(pilot, lambda: app.engine is not None, "the engine")
        await wait_for(pilot, lambda: not isinstance(app.screen, TrustQuestion), "closed")
        assert question_shown(app) is None
        manager = app.built_engine().mcp
        assert manager is None or "shared" not in manager.configured
