"""After a resume the status bar and `/status` show the conversation's real context
size (the last request's usage, from the transcript) and the session's cost so far."""

from __future__ import annotations

from pathlib import Path

from agentcli.core.usage import Usage
from agentcli.wiring.bootstrap import Options, build_engine
from agentcli.wiring.composition import finish_session
from tests.engine.scripted import Response, ScriptedProvider, text
from tests.frontends.tui.helpers import send, wait_for
from tests.frontends.tui.test_clear import status
from tests.frontends.tui.test_resume import notes, open_app

EARLY = Usage(input_tokens=20_000, output_tokens=1_000, cache_read_input_tokens=10_000)
LATE = Usage(input_tokens=2_000, output_tokens=500, cache_read_input_tokens=60_000)


async def record(project: Path) -> tuple[str, float]:
    """Two exchanges with known usage; returns the session id and what it cost."""
    provider = ScriptedProvider(
        Response([text("One.")], usage=EARLY), Response([text("Two.")], usage=LATE)
    )
    engine = build_engine(Options(cwd=project), provider)
    for prompt in ("first", "second"):
        async for _event in engine.submit_message(prompt):
            pass
    finish_session(engine)
    return engine.session_id, engine.cost_usd


def resumed(app) -> bool:
    return any("Resumed conversation" in n for n in notes(app))


async def test_continue_shows_the_context_and_cost_of_the_conversation(tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    _session_id, cost = await record(project)

    app = open_app(project, "--continue")
    async with app.run_test(size=(110, 50)) as pilot:
        await wait_for(pilot, lambda: resumed(app), "the resumed conversation")

        assert app.engine.last_request_usage == LATE
        assert "context 62.0k (31%)" in status(app)
        assert f"${cost:.2f}" in status(app) and cost >= 0.1
        await send(pilot, "/status")
        await wait_for(pilot, lambda: "62,000 / 200,000" in app_text(app), "/status")
        await send(pilot, "/cost")
        await wait_for(pilot, lambda: f"${cost:.4f}" in app_text(app), "/cost")
        assert "turns: 2" in app_text(app).lower()  # /cost has two wordings today


async def test_resume_command_mid_session_shows_the_resumed_context(tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    session_id, cost = await record(project)

    app = open_app(project)
    async with app.run_test(size=(110, 50)) as pilot:
        await wait_for(pilot, lambda: app.engine is not None, "the engine")
        assert "context 0 (0%)" in status(app)
        await send(pilot, f"/resume {session_id[:8]}")
        await wait_for(pilot, lambda: resumed(app), "the resumed conversation")

        assert "context 62.0k (31%)" in status(app)
        assert f"${cost:.2f}" in status(app)


def app_text(app) -> str:
    from textual.widgets import Markdown

    return "\n".join(w.source for w in app.conversation.query(Markdown))
