"""A long session resumed in the app: the newest items at once, the whole history
reachable with the keys and the wheel while the prompt keeps the focus.

The session is recorded for real (bootstrap's engine, the real tools and
transcript writer, a scripted provider), then opened with `--continue`.
"""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from textual import events

from agentcli.frontends.tui.app import AgentApp
from agentcli.frontends.tui.widgets import conversation as conversation_module
from agentcli.frontends.tui.widgets.conversation import UserMessageView
from agentcli.frontends.tui.widgets.items import Note
from agentcli.frontends.tui.widgets.tool_pane import ToolPane
from agentcli.session import tail_first
from tests.frontends.tui.helpers import type_text, wait_for
from tests.frontends.tui.test_resume import notes, open_app
from tests.support.sessions import record_reading_session

pytestmark = pytest.mark.timeout(300)  # walking every page of 240 messages, on 2 busy cores

PROMPTS = 60  # 240 messages: more than the 200 the app once showed
ANSWER = "The last line of the answer."  # short items: fewer pages to walk on 2 cores


async def record_long_session(project: Path) -> None:
    """PROMPTS prompts, each answered by a Read and a few paragraphs."""
    await record_reading_session(project, PROMPTS, f"\n\n{ANSWER}")


def on_screen(app: AgentApp, wanted: str) -> bool:
    """A user message with this text is mounted and (partly) visible."""
    for view in app.conversation.query(UserMessageView):
        if view.text == wanted and view.region.area > 0:
            return True
    return False


def newest_on_screen(app: AgentApp) -> bool:
    return on_screen(app, f"prompt number {PROMPTS - 1}")


async def resumed(pilot, app: AgentApp) -> None:
    await wait_for(pilot, lambda: any("Resumed conversation" in n for n in notes(app)))
    await pilot.pause()


async def test_a_long_session_resumes_with_its_newest_items_only_built(tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    await record_long_session(project)
    app = open_app(project, "--continue")
    async with app.run_test(size=(100, 30)) as pilot:
        await resumed(pilot, app)
        await wait_for(pilot, lambda: newest_on_screen(app), "the newest prompt on screen")
        earlier, later = app.conversation.hidden_count()
        assert app.conversation.item_count() < 40 < earlier and later == 0
        assert not on_screen(app, "prompt number 0")
        assert app.focused is app.prompt


async def test_home_and_end_on_an_empty_prompt_reach_the_first_prompt_and_come_back(tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    await record_long_session(project)
    app = open_app(project, "--continue")
    async with app.run_test(size=(100, 30)) as pilot:
        await resumed(pilot, app)
        await pilot.press("home")
        await wait_for(pilot, lambda: on_screen(app, "prompt number 0"), "the first prompt")
        assert app.focused is app.prompt
        await pilot.press("end")
        await wait_for(pilot, lambda: newest_on_screen(app), "the newest prompt again")
        assert app.conversation.hidden_count()[1] == 0
        await pilot.press("ctrl+home")
        await wait_for(pilot, lambda: on_screen(app, "prompt number 0"), "the first prompt")
        await type_text(pilot, "hi")  # typing still goes to the prompt
        assert app.prompt.text == "hi"
        await pilot.press("home")  # with text, Home is the prompt's own key
        await pilot.press("ctrl+end")
        await wait_for(pilot, lambda: newest_on_screen(app), "the newest prompt again")
        await pilot.press("home")
        await pilot.pause()
        assert newest_on_screen(app) and app.prompt.text == "hi"


async def test_pageup_walks_back_to_the_first_prompt_and_pagedown_forward(tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    await record_long_session(project)
    app = open_app(project, "--continue")
    async with app.run_test(size=(100, 30)) as pilot:
        await resumed(pilot, app)
        for _ in range(400):
            if on_screen(app, "prompt number 0"):
                break
            await pilot.press("pageup")
            await pilot.pause()
        assert on_screen(app, "prompt number 0")
        assert app.focused is app.prompt
        # Every prompt was passed on the way: the history has no hole.
        for _ in range(400):
            if newest_on_screen(app):
                break
            await pilot.press("pagedown")
            await pilot.pause()
        assert newest_on_screen(app)
        assert app.conversation.item_count() <= app.conversation.max_widgets


async def test_the_mouse_wheel_scrolls_back_to_the_first_prompt(tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    await record_long_session(project)
    app = open_app(project, "--continue")
    async with app.run_test(size=(100, 30)) as pilot:
        await resumed(pilot, app)
        conversation = app.conversation
        for _ in range(500):
            if on_screen(app, "prompt number 0"):
                break
            x, y = conversation.region.center
            for _ in range(10):  # a turn of the wheel
                conversation.post_message(
                    events.MouseScrollUp(conversation, 1, 1, 0, -1, 0, False, False, False, x, y)
                )
            await pilot.pause()
        assert on_screen(app, "prompt number 0")
        assert app.focused is app.prompt


def history_items_built(app: AgentApp) -> int:
    """The history's prompts and tool panes that are widgets now (notes left out)."""
    return len(app.conversation.query(UserMessageView)) + len(app.conversation.query(ToolPane))


async def test_the_history_fills_in_while_the_person_is_not_typing(tmp_path, monkeypatch):
    """Each item the fill builds is a frame's layout and paint, which a key typed
    meanwhile would wait for: while the person types, the fill waits."""
    project = tmp_path / "project"
    project.mkdir()
    await record_long_session(project)
    monkeypatch.setattr(conversation_module, "FILL_PAUSE_S", 600.0)  # no pause ends here
    app = open_app(project, "--continue")
    async with app.run_test(size=(100, 60)) as pilot:
        await wait_for(pilot, lambda: newest_on_screen(app), "the newest prompt on screen")
        await type_text(pilot, "x")
        built = history_items_built(app)
        for _ in range(20):  # frames enough to build an item each
            await pilot.pause()
        assert history_items_built(app) == built
        monkeypatch.setattr(conversation_module, "FILL_PAUSE_S", 0.001)
        await type_text(pilot, "y")  # a pause that ends at once
        await wait_for(pilot, lambda: history_items_built(app) > built, "the fill going on")
        assert app.prompt.text == "xy" and app.focused is app.prompt


async def test_typing_from_the_first_frame_on_holds_the_fill_off_too(tmp_path, monkeypatch):
    """A resume is typed into before its history is there: keys typed before the
    newest item was drawn hold the fill off as keys typed after it do."""
    project = tmp_path / "project"
    project.mkdir()
    await record_long_session(project)
    monkeypatch.setattr(conversation_module, "FILL_PAUSE_S", 600.0)  # no pause ends here
    typed = threading.Event()
    opened = tail_first.open_tail_first

    def after_typing(path: Path, lines: int | None = None):
        typed.wait(30)
        return opened(path, lines)

    monkeypatch.setattr(tail_first, "open_tail_first", after_typing)
    app = open_app(project, "--continue")
    async with app.run_test(size=(100, 60)) as pilot:
        await type_text(pilot, "x")  # the transcript is not read yet
        typed.set()
        await wait_for(pilot, lambda: app.conversation.hidden_count()[0] > 0, "the tail drawn")
        for _ in range(20):  # frames enough to build an item each
            await pilot.pause()
        assert history_items_built(app) == 0  # the newest answer only
        monkeypatch.setattr(conversation_module, "FILL_PAUSE_S", 0.001)
        await type_text(pilot, "y")  # a pause that ends at once
        await wait_for(pilot, lambda: history_items_built(app) > 0, "the fill going on")
        assert app.prompt.text == "xy" and app.focused is app.prompt


async def test_what_comes_while_the_history_fills_in_is_shown_at_the_end(tmp_path, monkeypatch):
    """The fill builds items above the screen and keeps what is on screen in place: a
    line added at the end meanwhile (the resume's own note) comes into view, as the
    newest item, and the view goes on following the end."""
    project = tmp_path / "project"
    project.mkdir()
    await record_long_session(project)
    monkeypatch.setattr(conversation_module, "FILL_PAUSE_S", 600.0)  # the fill stays paused
    app = open_app(project, "--continue")
    async with app.run_test(size=(100, 40)) as pilot:
        await wait_for(pilot, lambda: newest_on_screen(app), "the newest prompt on screen")
        await type_text(pilot, "x")
        await resumed(pilot, app)
        conversation = app.conversation
        [note] = [n for n in conversation.query(Note) if "Resumed conversation" in n.given]
        for _ in range(5):
            await pilot.pause()
        assert conversation.region.contains_region(note.region)
        conversation.add_note("one more line")
        await pilot.pause()
        await pilot.pause()
        last = list(conversation.query(Note))[-1]
        assert conversation.region.contains_region(last.region)
