"""A diff takes its full height from its first layout and follows the theme.

The screen may measure a new widget for its layout before the widget has
handled its own Mount message. A diff whose lines were only filled in by its
mount handler measured one line tall in that window: the screen showed its
first line alone, and everything below it jumped down a frame later (CI caught
it in a test of controls, and again in a snapshot). Here the diff's mount
handler is held back, so the window stays open for as long as the test looks.
"""

from __future__ import annotations

import asyncio

from textual.app import App, ComposeResult
from textual.geometry import Size

from agentcli.frontends.tui.app import AgentApp
from agentcli.frontends.tui.widgets.conversation import Conversation
from agentcli.frontends.tui.widgets.diff_view import DiffView
from agentcli.tools.diff import build_diff
from tests.engine.scripted import ScriptedProvider
from tests.frontends.tui.helpers import make_app, send, wait_for

DIFF = build_diff(
    "config.py", "# settings\nvalue = 1\ndebug = False\n", "# settings\nvalue = 2\ndebug = False\n"
)
LINES = ["1   # settings", "2 - value = 1", "2 + value = 2", "3   debug = False"]


class MountHeldBack(DiffView):
    """A diff whose Mount message is still being handled: its own handler waits."""

    def __init__(self, gate: asyncio.Event) -> None:
        super().__init__(DIFF)
        self.gate = gate

    async def on_mount(self) -> None:
        await self.gate.wait()


class Host(App[None]):
    def compose(self) -> ComposeResult:
        yield Conversation(id="conversation")


async def test_a_diff_measures_its_full_height_before_it_handled_its_mount() -> None:
    gate = asyncio.Event()
    app = Host()
    async with app.run_test(size=(80, 20)) as pilot:
        view = app.query_one(Conversation).add_widget(MountHeldBack(gate))
        try:
            # The pilot waits for every widget's messages, this one's too: the loop
            # is turned by hand until the widget is in the tree and styled.
            for _ in range(10_000):
                if view.is_attached:
                    break
                await asyncio.sleep(0)
            screen = Size(80, 20)
            assert view.get_content_height(screen, screen, 80) == len(LINES)
            assert str(view.render()).splitlines() == LINES
        finally:
            gate.set()
        await wait_for(pilot, lambda: view.size.height, "the diff's layout")
        assert view.size.height == len(LINES)


def added_background(view: DiffView) -> object:
    """The background the added line is drawn on, as the screen paints it."""
    line = next(strip for strip in view.render_lines(view.size.region) if "+ value" in strip.text)
    (segment,) = [s for s in line if "value = 2" in s.text]
    assert segment.style is not None
    return segment.style.bgcolor


async def test_a_diff_on_screen_takes_the_colours_of_a_new_theme(tmp_path) -> None:
    app: AgentApp = make_app(ScriptedProvider(), tmp_path)
    async with app.run_test(size=(80, 30)) as pilot:
        view = app.conversation.add_widget(DiffView(DIFF))
        await wait_for(pilot, lambda: view.size.height == len(LINES), "the diff")
        dark = added_background(view)
        await send(pilot, "/theme light")
        await wait_for(pilot, lambda: app.has_class("theme-light"), "the light theme")
        await wait_for(pilot, lambda: added_background(view) != dark, "the diff in light colours")
        assert added_background(view) != dark
