"""A live session stays flat (issue 25): the items far above the screen are released
while the person follows the end, and come back, with their content, when scrolled to.

The session is played for real: the app's engine and Anthropic provider against the
fake Messages API, prompt after prompt, each answered by a few paragraphs of markdown.
"""

from __future__ import annotations

import pytest
from textual import events

from agentcli.frontends.tui.app import AgentApp
from agentcli.frontends.tui.widgets.conversation import KEEP_SCREENS, UserMessageView
from agentcli.frontends.tui.widgets.streaming_markdown import StreamingMarkdown
from agentcli.tools.read import ReadTool
from tests.fakeapi import reply, text
from tests.frontends.tui.helpers import idle, make_app, send, wait_for

pytestmark = pytest.mark.timeout(300)

PROMPTS = 16
SIZE = (100, 30)


def answer(n: int) -> str:
    return (
        f"## Answer {n}\n\nThe loader keeps its cache **forever**; part {n} reads it.\n\n"
        "- it is read once\n- nothing clears it\n\n"
        f"```python\ndef load_{n}(path):\n    return cache[path]\n```\n\nDone with part {n}.\n"
    )


def on_screen(app: AgentApp, wanted: str) -> bool:
    for view in app.conversation.query(UserMessageView):
        if view.text == wanted and view.region.area > 0:
            return True
    return False


def answers_shown(app: AgentApp) -> list[str]:
    return [w.source for w in app.conversation.query(StreamingMarkdown)]


async def play(pilot, app: AgentApp, fake_api) -> None:
    """The session: each prompt pasted, as the driver delivers a paste, and sent (typed
    key by key, the 16 prompts took half a minute of Pilot's waits between keys; what
    a typed key does is tested elsewhere)."""
    for n in range(PROMPTS):
        fake_api.enqueue(reply(text(answer(n))))
        app.post_message(events.Paste(f"prompt number {n}"))
        await wait_for(pilot, lambda n=n: app.prompt.text == f"prompt number {n}", "the paste")
        await pilot.press("enter")
        await idle(pilot, app)


async def test_items_far_above_the_screen_are_released_and_rebuilt_when_scrolled_to(
    fake_api, fake_api_provider, tmp_path
):
    app = make_app(fake_api_provider, tmp_path, [ReadTool()])
    async with app.run_test(size=SIZE) as pilot:
        await play(pilot, app, fake_api)
        conv = app.conversation
        await pilot.pause()
        mounted_lines = sum(item.outer_size.height for item in conv._items)
        earlier, later = conv.hidden_count()
        # Bounded by screens, not by the count cap (300): about KEEP_SCREENS screens
        # plus the one batch released at a time.
        assert mounted_lines <= (KEEP_SCREENS + 2) * SIZE[1]
        assert conv.item_count() < 2 * PROMPTS // 2 and earlier >= PROMPTS
        assert later == 0 and conv.pruned <= 1  # only the banner: nothing rebuildable lost
        assert not on_screen(app, "prompt number 0")
        assert on_screen(app, f"prompt number {PROMPTS - 1}")

        await pilot.press("home")  # back to the first prompt: rebuilt from its entries
        await wait_for(pilot, lambda: on_screen(app, "prompt number 0"), "the first prompt")
        assert answers_shown(app)[0] == answer(0)
        await pilot.press("end")
        await wait_for(pilot, lambda: on_screen(app, f"prompt number {PROMPTS - 1}"), "the end")
        assert answers_shown(app)[-1] == answer(PROMPTS - 1)


async def test_nothing_is_released_while_the_person_reads_further_up(
    fake_api, fake_api_provider, tmp_path
):
    app = make_app(fake_api_provider, tmp_path, [ReadTool()])
    async with app.run_test(size=SIZE) as pilot:
        await play(pilot, app, fake_api)
        conv = app.conversation
        await pilot.press("pageup")
        await pilot.press("pageup")
        await pilot.pause()
        reading = [view.text for view in conv.query(UserMessageView) if view.region.area > 0]
        assert reading
        before = conv.hidden_count()
        conv.add_note("a note that arrives while the person reads")
        await pilot.pause()
        assert conv.hidden_count() == before
        still = [view.text for view in conv.query(UserMessageView) if view.region.area > 0]
        assert still == reading


async def test_answers_keep_their_width_when_the_conversation_starts_to_scroll(
    fake_api, fake_api_provider, tmp_path
):
    """The scrollbar's column is kept while nothing scrolls: when it comes, no answer
    is wrapped (and rendered) again at a new width."""
    app = make_app(fake_api_provider, tmp_path, [ReadTool()])
    async with app.run_test(size=SIZE) as pilot:
        conv = app.conversation
        fake_api.enqueue(reply(text(answer(0))))
        await send(pilot, "prompt number 0")
        await idle(pilot, app)
        assert conv.max_scroll_y == 0  # one answer: nothing to scroll yet
        first = conv.query(StreamingMarkdown).first()
        width = first.content_size.width
        for n in range(1, 4):
            fake_api.enqueue(reply(text(answer(n))))
            await send(pilot, f"prompt number {n}")
            await idle(pilot, app)
        assert conv.max_scroll_y > 0
        assert first.is_mounted and first.content_size.width == width
        assert {w.content_size.width for w in conv.query(StreamingMarkdown)} == {width}
