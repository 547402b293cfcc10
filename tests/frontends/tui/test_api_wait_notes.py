"""The app shows waiting on the API the way headless mode does: the same words."""

from __future__ import annotations

from types import SimpleNamespace

from agentcli.frontends.tui.app import AgentApp
from tests.engine.scripted import Response, ScriptedProvider, text
from tests.frontends.tui.helpers import idle, make_app, send, wait_for


def notes(app: AgentApp) -> list[str]:
    return [str(n.render()) for n in app.conversation.query(".note")]


async def test_each_retry_is_a_note_worded_like_headless(tmp_path):
    provider = ScriptedProvider(Response([text("ok")], retries=2))
    app = make_app(provider, tmp_path)
    async with app.run_test() as pilot:
        await send(pilot, "go")
        await idle(pilot, app)
        shown = notes(app)
    assert "Retrying in 0 s (1/8): API Error 529: Overloaded" in shown
    assert "Retrying in 0 s (2/8): API Error 529: Overloaded" in shown


async def test_a_malformed_setting_is_a_note_and_the_app_starts(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    monkeypatch.setenv("AGENTCLI_STREAM_IDLE_TIMEOUT_MS", "soon")
    args = SimpleNamespace(
        model=None,
        permission_mode=None,
        allowed_tools=None,
        disallowed_tools=None,
        add_dirs=[],
        max_turns=None,
    )
    app = AgentApp(args, cwd=tmp_path, remember_theme=False)
    async with app.run_test() as pilot:
        await wait_for(pilot, lambda: app.engine and app.engine.provider, "the provider")
        expected = (
            "AGENTCLI_STREAM_IDLE_TIMEOUT_MS=soon is not a number of milliseconds above 0;"
            " using 120000"
        )
        await wait_for(pilot, lambda: expected in notes(app), "the note")
        assert app.provider_error is None
