"""What the person is told on screen: start-up notices, /status and /permissions.

The app is built the way `agentcli` builds it (no engine given: bootstrap
reads the settings files of a temporary project in the loader thread), so
these tests see the real notices of real broken files.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest
from textual.widgets import Markdown, Static

from agentcli.config.trust import remember
from agentcli.frontends.tui.app import AgentApp
from agentcli.frontends.tui.widgets.conversation import Note
from tests.engine.scripted import Response, ScriptedProvider, text, tool_use
from tests.frontends.tui.helpers import idle, question_ready, send, wait_for

BROKEN = '{"permissions": {"deny": ["Bash(rm:*)"],}}'


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A folder the person trusts (the question itself: test_folder_trust.py)."""
    root = tmp_path / "project"
    (root / ".agentcli").mkdir(parents=True)
    remember(root, True)
    return root


def _app(project: Path, *, mode: str | None = None, load_provider: bool = False) -> AgentApp:
    args = SimpleNamespace(
        model=None,
        permission_mode=mode,
        allowed_tools=["Bash"],
        disallowed_tools=None,
        add_dirs=[],
        max_turns=None,
    )
    return AgentApp(
        args, cwd=project, load_provider=load_provider, remember_theme=False, permission_guard_s=0
    )


def _notes(app: AgentApp) -> list[tuple[str, str]]:
    return [(note.level, str(note.render())) for note in app.conversation.query(Note)]


def _shown(widget: Markdown) -> str:
    """The text a markdown note shows (after markdown), as one string."""
    return " ".join(str(block.render()) for block in widget.query(Static))


async def _command(pilot, app: AgentApp, name: str) -> str:
    before = len(app.conversation.query(Markdown))
    await send(pilot, name)
    await wait_for(pilot, lambda: len(app.conversation.query(Markdown)) > before, name)
    await pilot.pause()
    return _shown(app.conversation.query(Markdown).last())


async def test_a_broken_deny_file_is_shown_on_start_with_the_locked_state(project):
    settings = project / ".agentcli" / "settings.json"
    settings.write_text(BROKEN)
    app = _app(project)
    async with app.run_test(size=(120, 50)) as pilot:
        await wait_for(pilot, lambda: len(_notes(app)) >= 2, "the start-up notices")
        (skipped_level, skipped), (locked_level, locked) = _notes(app)[:2]
        assert skipped_level == "warning"
        assert str(settings) in skipped and "line 1, column 41" in skipped
        assert locked_level == "error" and locked.startswith("Protection uncertain")
        assert str(settings) in locked and "every tool call asks" in locked
        assert app.engine.gate.policy.locked_reason
        assert "default · everything asks" in str(app.status_bar.render())


async def test_an_ignored_key_and_the_bypass_warning_are_shown_on_start(project):
    (project / ".agentcli" / "settings.local.json").write_text('{"thme": "dark"}')
    app = _app(project, mode="bypassPermissions")
    async with app.run_test(size=(120, 50)) as pilot:
        await wait_for(pilot, lambda: len(_notes(app)) >= 2, "the start-up notices")
        notes = [text for _, text in _notes(app)]
        assert any("unknown key 'thme' (line 1, column 2)" in n for n in notes)
        assert any(n.startswith("bypassPermissions mode") for n in notes)
        assert not any("Protection uncertain" in n for n in notes)


async def test_status_lists_each_settings_file_and_the_locked_state(project):
    shared = project / ".agentcli" / "settings.json"
    shared.write_text(BROKEN)
    local = project / ".agentcli" / "settings.local.json"
    local.write_text(json.dumps({"model": "m-local"}))
    app = _app(project)
    async with app.run_test(size=(160, 60)) as pilot:
        await wait_for(pilot, lambda: app.engine is not None, "the engine")
        shown = await _command(pilot, app, "/status")
        assert f"project {shared}: skipped: invalid JSON at line 1, column 41" in shown
        assert f"local {local}: loaded" in shown
        assert "user " in shown and "not found" in shown
        assert "Protection uncertain" in shown and "every tool call asks" in shown


async def test_status_says_when_there_is_no_model_connection(project):
    app = _app(project, load_provider=True)  # the environment has no API key
    async with app.run_test(size=(160, 60)) as pilot:
        await wait_for(pilot, lambda: app.provider_error, "the provider error")
        notes = [text for level, text in _notes(app) if level == "error"]
        assert any("ANTHROPIC_API_KEY" in n for n in notes)  # on start, not on first send
        shown = await _command(pilot, app, "/status")
        assert "Model connection: No API key found. Set ANTHROPIC_API_KEY" in shown


async def test_permissions_shows_rule_sources_ignored_keys_and_the_locked_state(project):
    shared = project / ".agentcli" / "settings.json"
    shared.write_text(json.dumps({"permissions": {"deny": "Bash(rm:*)", "allow": ["Read"]}}))
    local = project / ".agentcli" / "settings.local.json"
    local.write_text('{"permissions": {"ask": ["Bash(git push:*)"], "allow": ["Edit"]}, "x": 1}')
    app = _app(project)
    async with app.run_test(size=(160, 60)) as pilot:
        await wait_for(pilot, lambda: app.engine is not None, "the engine")
        shown = await _command(pilot, app, "/permissions")
        assert f"Bash(rm:*) — project settings ({shared})" in shown
        assert f"Read — project settings ({shared})" in shown
        assert "Bash — command line" in shown
        # an unknown key is ignored alone: the rest of its file applies
        assert f"Bash(git push:*) — local settings ({local})" in shown
        assert f"Edit — local settings ({local})" in shown
        assert f"local {local}: ignored unknown key 'x' (line 1, column 67)" in shown
        assert "Protection uncertain" not in shown


async def test_permissions_shows_the_locked_state(project):
    (project / ".agentcli" / "settings.json").write_text(BROKEN)
    app = _app(project)
    async with app.run_test(size=(160, 60)) as pilot:
        await wait_for(pilot, lambda: app.engine is not None, "the engine")
        shown = await _command(pilot, app, "/permissions")
        assert "Protection uncertain" in shown and "line 1, column 41" in shown


async def test_while_protection_is_uncertain_even_a_read_asks(project):
    settings = project / ".agentcli" / "settings.json"
    settings.write_text(BROKEN)
    (project / "a.txt").write_text("hello\n")
    read = tool_use("Read", {"file_path": str(project / "a.txt")})
    provider = ScriptedProvider(Response([read]), Response([text("done")]))
    app = _app(project)
    async with app.run_test(size=(120, 50)) as pilot:
        await wait_for(pilot, lambda: app.engine is not None, "the engine")
        app.engine.connect(provider)
        await send(pilot, "read it")
        prompt = await wait_for(pilot, lambda: question_ready(app), "the permission prompt")
        assert prompt.request.reason.startswith("protection uncertain")
        assert str(settings) in prompt.request.reason
        await pilot.press("n")
        await idle(pilot, app)
