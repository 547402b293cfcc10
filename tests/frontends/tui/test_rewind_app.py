"""The rewind in the app: Esc twice or /rewind, the prompt list, the choices, the conflicts."""

from __future__ import annotations

import pytest

from agentcli.frontends.tui.app import AgentApp
from agentcli.frontends.tui.screens.rewind import RewindPicker, RewindQuestion
from agentcli.wiring.composition import finish_session
from tests.frontends.tui.helpers import send, wait_for
from tests.session.rewind_support import Session, run_three_prompts


@pytest.fixture
async def session(fake_api, tmp_path) -> Session:
    return await run_three_prompts(fake_api, tmp_path)


def app_on(session: Session) -> AgentApp:
    return AgentApp(
        cwd=session.root, engine=session.engine, permission_guard_s=0.0, remember_theme=False
    )


async def choose(pilot, screen_type, downs: int) -> None:
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, screen_type), screen_type.__name__)
    await pilot.press(*["down"] * downs, "enter")


def picker_rows(app: AgentApp) -> list[str]:
    screen = app.screen
    assert isinstance(screen, RewindPicker)
    return [str(row.first_line) for row in screen.rows]


async def test_esc_twice_rewinds_code_and_conversation_and_refills_the_prompt(session):
    app = app_on(session)
    async with app.run_test() as pilot:
        await wait_for(pilot, lambda: app.ready, "the app to be ready")
        await pilot.press("escape", "escape")
        await wait_for(pilot, lambda: isinstance(app.screen, RewindPicker), "the prompt list")
        assert picker_rows(app) == [
            "value 4 and pkg/c.py",
            "value 3 and a new file",
            "set value to 2",
        ]
        assert "not tracked" in " ".join(str(s.render()) for s in app.screen.query("Static"))

        await pilot.press("down", "enter")
        await choose(pilot, RewindQuestion, 0)  # restore code and conversation

        await wait_for(pilot, lambda: app.prompt.text, "the prompt back in the input")
        assert app.prompt.text == "value 3 and a new file\nsecond line"
        assert session.files() == session.before_second
        assert len(session.engine.messages) == session.messages_before_second
    finish_session(session.engine)


async def test_conversation_only_leaves_the_files(session):
    after_three = session.files()
    app = app_on(session)
    async with app.run_test() as pilot:
        await wait_for(pilot, lambda: app.ready, "the app to be ready")
        await send(pilot, "/rewind")
        await choose(pilot, RewindPicker, 1)
        await choose(pilot, RewindQuestion, 1)  # conversation only

        await wait_for(pilot, lambda: app.prompt.text, "the prompt back in the input")
        assert session.files() == after_three
        assert session.engine.prompt_ids() == session.prompt_ids[:1]
    finish_session(session.engine)


async def test_a_choice_is_taken_by_its_number_as_its_label_says(session):
    """The choices read "1. Restore code and conversation", "2. ...": pressing 2 takes
    the second, as the digits do in a permission question."""
    after_three = session.files()
    app = app_on(session)
    async with app.run_test() as pilot:
        await wait_for(pilot, lambda: app.ready, "the app to be ready")
        await send(pilot, "/rewind")
        await choose(pilot, RewindPicker, 1)
        await wait_for(pilot, lambda: isinstance(app.screen, RewindQuestion), "the choices")
        await pilot.press("9")  # no such choice: nothing happens
        assert isinstance(app.screen, RewindQuestion)
        await pilot.press("2")  # conversation only

        await wait_for(pilot, lambda: app.prompt.text, "the prompt back in the input")
        assert session.files() == after_three
        assert session.engine.prompt_ids() == session.prompt_ids[:1]
    finish_session(session.engine)


async def test_a_file_the_person_changed_is_asked_about_and_kept(session):
    (session.root / "a.py").write_text("mine\n")
    app = app_on(session)
    async with app.run_test() as pilot:
        await wait_for(pilot, lambda: app.ready, "the app to be ready")
        await send(pilot, "/rewind")
        await choose(pilot, RewindPicker, 1)
        await choose(pilot, RewindQuestion, 2)  # code only
        await wait_for(
            pilot,
            lambda: isinstance(app.screen, RewindQuestion) and "a.py" in app.screen.lines,
            "the conflict question",
        )
        # The agent's own shell command may have made the change: not "you changed".
        assert isinstance(app.screen, RewindQuestion)
        assert app.screen.title_text == (
            "These files changed since the agent's last edit (by a shell command or by you):"
        )
        assert "you changed" not in " ".join(app.screen.lines).lower()
        await pilot.press("enter")  # keep those changes

        await wait_for(pilot, lambda: not (session.root / "new.py").exists(), "the rewind")
        assert (session.root / "a.py").read_text() == "mine\n"
        assert len(session.engine.messages) > session.messages_before_second
    finish_session(session.engine)


async def test_cancel_changes_nothing(session):
    before = session.files()
    messages = list(session.engine.messages)
    app = app_on(session)
    async with app.run_test() as pilot:
        await wait_for(pilot, lambda: app.ready, "the app to be ready")
        await send(pilot, "/rewind")
        await choose(pilot, RewindPicker, 1)
        await wait_for(pilot, lambda: isinstance(app.screen, RewindQuestion), "the choices")
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, RewindQuestion), "cancel")
    assert session.files() == before and session.engine.messages == messages
    finish_session(session.engine)
