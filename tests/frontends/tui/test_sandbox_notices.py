"""The app says whether Bash runs sandboxed: on start when it cannot, in /status and the status bar."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from agentcli.frontends.tui.app import AgentApp
from tests.frontends.tui.helpers import wait_for
from tests.frontends.tui.test_startup_notices import _command, _notes


def _app(project: Path, *, sandbox: bool) -> AgentApp:
    args = SimpleNamespace(
        model=None,
        permission_mode=None,
        allowed_tools=None,
        disallowed_tools=None,
        add_dirs=[],
        max_turns=None,
        sandbox=sandbox,
    )
    return AgentApp(
        args, cwd=project, load_provider=False, remember_theme=False, permission_guard_s=0
    )


async def test_a_sandbox_that_cannot_start_is_an_error_note_on_start(project, monkeypatch):
    monkeypatch.setenv("PATH", str(project / "no-bwrap-here"))
    app = _app(project, sandbox=True)
    async with app.run_test(size=(160, 60)) as pilot:
        await wait_for(pilot, lambda: _notes(app), "the start-up notice")
        ((level, text),) = _notes(app)
        assert level == "error"
        assert text.startswith("The sandbox is on but cannot run commands: bubblewrap is not")
        assert "sandboxed" in str(app.status_bar.render())
        shown = await _command(pilot, app, "/status")
        assert "Sandbox: on, but it cannot run commands: bubblewrap is not installed" in shown


async def test_status_describes_a_working_sandbox(project, needs_bwrap):
    app = _app(project, sandbox=True)
    async with app.run_test(size=(200, 60)) as pilot:
        await wait_for(pilot, lambda: app.engine is not None, "the engine")
        assert _notes(app) == []
        assert "sandboxed" in str(app.status_bar.render())
        shown = await _command(pilot, app, "/status")
        assert "Sandbox: on (bubblewrap): Bash commands write only in the project" in shown
        assert "no network" in shown and "auto-allowed" in shown


async def test_status_says_the_sandbox_is_off(project):
    app = _app(project, sandbox=False)
    async with app.run_test(size=(160, 60)) as pilot:
        await wait_for(pilot, lambda: app.engine is not None, "the engine")
        assert "sandboxed" not in str(app.status_bar.render())
        assert "Sandbox: off" in await _command(pilot, app, "/status")
