"""The app's frames: typing brings its echo's frame forward (textual_private.py
`FramePacer`, installed by importing the widgets)."""

from __future__ import annotations

from textual import events

from agentcli.frontends.tui.textual_private import FramePacer
from tests.engine.scripted import ScriptedProvider
from tests.frontends.tui.helpers import make_app


async def test_a_key_or_a_scroll_puts_the_screen_at_the_typing_pace(tmp_path):
    app = make_app(ScriptedProvider(), tmp_path)
    async with app.run_test() as pilot:
        await pilot.pause()
        pacer = app.screen._update_timer
        assert isinstance(pacer, FramePacer)
        assert pacer._input_at == float("-inf")  # frames so far: output alone
        await pilot.press("x")
        typed_at = pacer._input_at
        assert typed_at > float("-inf")
        assert app.prompt.text == "x"
        x, y = app.conversation.region.center
        # As the terminal's driver sends a turn of the wheel: to the app, not forwarded.
        app.post_message(events.MouseScrollUp(None, x, y, 0, -1, 0, False, False, False, x, y))
        await pilot.pause()
        assert pacer._input_at > typed_at
        moved_at = pacer._input_at
        await pilot.hover(app.prompt)  # the mouse's moves are not watched for
        assert pacer._input_at == moved_at
