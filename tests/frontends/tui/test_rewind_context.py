"""After a conversation rewind the status bar (and `/status`) shows the size of the
conversation as it now is, not the size it had before the rewind: the API's count
of the last request whose answer is still in it, or, for answers from before a
resume (whose counts the engine does not keep), the estimate `/context` shows."""

from __future__ import annotations

from pathlib import Path

from agentcli.core.usage import Usage
from agentcli.engine.windows import context_usage
from agentcli.frontends.tui.app import AgentApp
from agentcli.frontends.tui.screens.rewind import RewindPicker, RewindQuestion
from agentcli.frontends.tui.widgets.status import format_tokens
from agentcli.wiring.bootstrap import Options, build_engine
from agentcli.wiring.composition import finish_session
from tests.engine.scripted import Response, ScriptedProvider, text
from tests.frontends.tui.helpers import send, wait_for
from tests.frontends.tui.test_clear import status
from tests.frontends.tui.test_resume import notes, open_app
from tests.frontends.tui.test_resume_context import EARLY, LATE, app_text

PROMPTS = ("first", "second")


async def two_prompts(project: Path):
    """An engine after two exchanges whose requests the API counted (30k, then 62k)."""
    provider = ScriptedProvider(
        Response([text("One.")], usage=EARLY), Response([text("Two.")], usage=LATE)
    )
    engine = build_engine(Options(cwd=project), provider)
    for prompt in PROMPTS:
        async for _event in engine.submit_message(prompt):
            pass
    return engine


async def rewind_conversation(pilot, app: AgentApp, prompt: str) -> None:
    """/rewind, the row of `prompt` (the newest prompt first), the conversation only."""
    await send(pilot, "/rewind")
    await wait_for(pilot, lambda: isinstance(app.screen, RewindPicker), "the prompt list")
    rows = [row.first_line for row in app.screen.rows]
    await pilot.press(*["down"] * rows.index(prompt), "enter")
    await wait_for(pilot, lambda: isinstance(app.screen, RewindQuestion), "the choices")
    await pilot.press("down", "enter")
    await wait_for(pilot, lambda: app.prompt.text == prompt, "the prompt back in the input")


def app_on(engine, project: Path) -> AgentApp:
    return AgentApp(cwd=project, engine=engine, permission_guard_s=0.0, remember_theme=False)


async def test_the_status_bar_shows_the_count_of_the_conversation_left(tmp_path):
    assert EARLY.context_tokens == 30_000
    engine = await two_prompts(tmp_path)
    app = app_on(engine, tmp_path)
    async with app.run_test(size=(110, 50)) as pilot:
        await wait_for(pilot, lambda: app.ready, "the app to be ready")
        assert "context 62.0k (31%)" in status(app)

        await rewind_conversation(pilot, app, "second")

        assert "context 30.0k (15%)" in status(app)
        app.prompt.set_text("")
        await send(pilot, "/status")
        await wait_for(pilot, lambda: "30,000 / 200,000" in app_text(app), "/status")

        app.prompt.set_text("")
        await rewind_conversation(pilot, app, "first")

        assert engine.messages == []
        assert "context 0 (0%)" in status(app)
    finish_session(engine)


async def test_after_a_resume_the_estimate_stands_for_counts_not_kept(tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    finish_session(await two_prompts(project))

    app = open_app(project, "--continue")
    async with app.run_test(size=(110, 50)) as pilot:
        await wait_for(pilot, lambda: any("Resumed" in n for n in notes(app)), "the resume")
        assert "context 62.0k (31%)" in status(app)

        await rewind_conversation(pilot, app, "second")

        estimate = context_usage(app.engine).total
        assert app.engine.last_request_usage == Usage(input_tokens=estimate)
        assert 0 < estimate < 30_000  # "first" and "One.", with the system prompt and tools
        percent = estimate * 100 // 200_000
        assert f"context {format_tokens(estimate)} ({percent}%)" in status(app)
