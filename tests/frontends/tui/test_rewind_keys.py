"""The rewind's lists and the Esc Esc hint: the cursor stops at either end of a list
(it never jumps from the oldest prompt to the newest), and "Press Esc again to rewind"
is drawn only while a second Esc would open the rewind: it goes when it runs out, when
the rewind opens, and when the person types. Ctrl+C's "again to exit" hint likewise."""

from __future__ import annotations

import pytest
from textual.widgets import OptionList, Static

from agentcli.frontends.tui.app import AgentApp
from agentcli.frontends.tui.screens.rewind import RewindPicker, RewindQuestion
from agentcli.wiring.composition import finish_session
from tests.frontends.tui.helpers import type_text, wait_for
from tests.session.rewind_support import Session, run_three_prompts

REWIND_HINT = "Press Esc again to rewind"
EXIT_HINT = "Press Ctrl+C again to exit"
LONG_WINDOW_S = 300.0


@pytest.fixture
async def session(fake_api, tmp_path) -> Session:
    return await run_three_prompts(fake_api, tmp_path)


def app_on(session: Session) -> AgentApp:
    app = AgentApp(
        cwd=session.root, engine=session.engine, permission_guard_s=0.0, remember_theme=False
    )
    # The window for a second press, long enough that no frame of a loaded machine
    # outlasts it (2 s did, in CI: the hint was gone before the test looked); its end
    # is tested on its own, with a short one.
    app.keys.double_press_s = LONG_WINDOW_S
    return app


def drawn(app: AgentApp, words: str) -> bool:
    """Is `words` in a widget shown on the current screen (notifications included)?"""
    return any(
        words in str(widget.render())
        for widget in app.screen.query("*")  # by type, Textual's Toast is not a "Static"
        if isinstance(widget, Static) and widget.display and widget.visible and widget.region.area
    )


def highlighted(app: AgentApp) -> int | None:
    return app.screen.query_one(OptionList).highlighted


async def test_the_prompt_list_stops_at_its_ends(session):
    app = app_on(session)
    async with app.run_test(notifications=True) as pilot:
        await wait_for(pilot, lambda: app.ready, "the app to be ready")
        app.open_rewind()
        await wait_for(pilot, lambda: isinstance(app.screen, RewindPicker), "the prompt list")
        await pilot.press("up")
        assert highlighted(app) == 0  # the newest, and it stays there
        await pilot.press("down", "down", "down", "down")
        assert highlighted(app) == 2  # the oldest: Down does not wrap to the newest
        await pilot.press("up")
        assert highlighted(app) == 1
        await pilot.press("escape")
    finish_session(session.engine)


async def test_the_choices_stop_at_their_ends_and_skip_the_disabled_ones():
    from textual.app import App

    question = RewindQuestion(
        "What?", [], [("a", "First", True), ("b", "Off", False), ("c", "Last", True)]
    )

    async with App[None]().run_test() as pilot:
        pilot.app.push_screen(question)
        await pilot.pause()
        options = question.query_one(OptionList)
        await pilot.press("up")
        assert options.highlighted == 0
        await pilot.press("down")
        assert options.highlighted == 2  # over the disabled one
        await pilot.press("down")
        assert options.highlighted == 2


async def test_the_hint_goes_when_the_rewind_opens_and_does_not_come_back(session):
    app = app_on(session)
    async with app.run_test(notifications=True) as pilot:
        await wait_for(pilot, lambda: app.ready, "the app to be ready")
        await pilot.press("escape")
        await wait_for(pilot, lambda: drawn(app, REWIND_HINT), "the hint")
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, RewindPicker), "the prompt list")
        await pilot.pause()
        assert not drawn(app, REWIND_HINT)
        await pilot.press("escape")  # back, without rewinding
        await wait_for(pilot, lambda: not isinstance(app.screen, RewindPicker), "the app")
        await pilot.pause()
        assert not drawn(app, REWIND_HINT)
    finish_session(session.engine)


async def test_typing_takes_the_hint_away_and_the_next_esc_is_a_first_one(session):
    app = app_on(session)
    async with app.run_test(notifications=True) as pilot:
        await wait_for(pilot, lambda: app.ready, "the app to be ready")
        await pilot.press("escape")
        await wait_for(pilot, lambda: drawn(app, REWIND_HINT), "the hint")
        await type_text(pilot, "x")
        await pilot.pause()
        assert not drawn(app, REWIND_HINT)
        await pilot.press("backspace")
        await pilot.press("escape")  # the prompt is empty again: a first Esc, not a second
        await pilot.pause()
        assert not isinstance(app.screen, RewindPicker)
        assert drawn(app, REWIND_HINT)
    finish_session(session.engine)


async def test_the_hint_goes_when_the_second_esc_can_no_longer_come(session):
    app = app_on(session)
    app.keys.double_press_s = 0.2  # the window, shortened for the test
    async with app.run_test(notifications=True) as pilot:
        await wait_for(pilot, lambda: app.ready, "the app to be ready")
        # On a loaded machine the 0.2 s can pass before a frame is looked at: the
        # hints the status bar was given are kept, so a short-lived one is not missed.
        hints: list[str] = []
        show_hint = app.status_bar.show_hint

        def kept(hint: str) -> None:
            hints.append(hint)
            show_hint(hint)

        app.status_bar.show_hint = kept  # type: ignore[method-assign]
        await pilot.press("escape")
        await wait_for(pilot, lambda: hints[:2] == [REWIND_HINT, ""], "the hint, then its end")
        await wait_for(pilot, lambda: not drawn(app, REWIND_HINT), "the hint to expire")
        assert app.keys.armed is None
        await pilot.press("escape")  # after the window: a first Esc again
        await pilot.pause()
        assert not isinstance(app.screen, RewindPicker)
    finish_session(session.engine)


async def test_the_exit_hint_goes_when_the_person_types(session):
    app = app_on(session)
    async with app.run_test(notifications=True) as pilot:
        await wait_for(pilot, lambda: app.ready, "the app to be ready")
        await pilot.press("ctrl+c")
        await wait_for(pilot, lambda: drawn(app, EXIT_HINT), "the hint")
        await type_text(pilot, "x")
        await pilot.pause()
        assert not drawn(app, EXIT_HINT)
        await pilot.press("ctrl+c")  # clears the prompt
        await pilot.press("ctrl+c")  # a first Ctrl+C on the empty prompt: no quitting
        await pilot.pause()
        assert app.is_running and drawn(app, EXIT_HINT)
    finish_session(session.engine)
