"""A permission question fits the terminal: however long the diff or the command, the
answers (and the question's title) stay on screen, down to 40x12, and what does not fit
scrolls inside the question (the keys Up, Down, PageUp, PageDown, Home, End scroll it)."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widget import Widget

from agentcli.frontends.tui.widgets.permission_prompt import PermissionPrompt
from agentcli.permissions.types import PermissionMode
from agentcli.tools.bash import BashTool
from agentcli.tools.registry import builtin_tools
from tests.engine.scripted import Response, ScriptedProvider, text, tool_use
from tests.frontends.tui.helpers import make_app, question_ready, send, wait_for

SIZES = [(40, 12), (60, 16), (80, 24), (120, 50)]


def long_edit_app(root: Path, *, lines: int = 200, **kwargs):
    target = root / "big.py"
    old = "".join(f"line_{i} = {i}\n" for i in range(lines))
    target.write_text(old)
    new = "".join(f"line_{i} = {i + 1}\n" for i in range(lines))
    edit = {"file_path": str(target), "old_string": old, "new_string": new}
    provider = ScriptedProvider(
        Response([tool_use("Read", {"file_path": str(target)}, "toolu_r")]),
        Response([tool_use("Edit", edit, "toolu_e")]),
        Response([text("Done.")]),
    )
    tools = [builtin_tools().get("Read"), builtin_tools().get("Edit")]
    return make_app(provider, root, tools, mode=PermissionMode.DEFAULT, **kwargs)


def long_command_app(root: Path):
    """A Bash call with a long command and the four answers (a rule to offer)."""
    command = "npm test -- " + " ".join(f"--case-{i}" for i in range(400))
    provider = ScriptedProvider(
        Response([tool_use("Bash", {"command": command}, "toolu_b")]),
        Response([text("Done.")]),
    )
    return make_app(provider, root, [BashTool()], mode=PermissionMode.DEFAULT)


def wholly_shown(app, widget: Widget) -> bool:
    """Every cell of `widget` is on screen and not covered or clipped away."""
    region = widget.region
    if not region.area or not app.screen.region.contains_region(region):
        return False
    return all(
        app.get_widget_at(x, y)[0] is widget
        for y in range(region.y, region.bottom)
        for x in (region.x, region.right - 1)
    )


async def ask(pilot, app) -> PermissionPrompt:
    await send(pilot, "go")
    prompt = await wait_for(pilot, lambda: question_ready(app), "the question")
    await pilot.pause()
    await pilot.pause()
    return prompt


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("make", [long_edit_app, long_command_app], ids=["diff", "command"])
async def test_the_answers_stay_on_screen_and_the_rest_scrolls(tmp_path, size, make):
    app = make(tmp_path)
    async with app.run_test(size=size) as pilot:
        prompt = await ask(pilot, app)
        options = prompt.query_one(".permission-options")
        title = prompt.query_one(".permission-title")
        await wait_for(pilot, lambda: wholly_shown(app, options), "the answers on screen")
        assert wholly_shown(app, title)
        details = prompt.query_one(".permission-details")
        assert details.max_scroll_y > 0  # too long to show whole: it scrolls
        await pilot.press("pagedown")
        await wait_for(pilot, lambda: details.scroll_y > 0, "the details to scroll")
        assert app.permission_prompt is prompt  # a scrolling key is no answer
        await pilot.press("end")
        await wait_for(pilot, lambda: details.scroll_y == details.max_scroll_y, "the end")
        assert wholly_shown(app, options)


async def test_the_answers_come_back_into_view_when_the_terminal_shrinks(tmp_path):
    app = long_edit_app(tmp_path)
    async with app.run_test(size=(100, 40)) as pilot:
        prompt = await ask(pilot, app)
        options = prompt.query_one(".permission-options")
        await pilot.resize_terminal(40, 12)
        await wait_for(pilot, lambda: wholly_shown(app, options), "the answers on screen")
        await pilot.resize_terminal(80, 24)
        await wait_for(pilot, lambda: wholly_shown(app, options), "the answers on screen")


async def test_a_short_question_takes_only_the_room_it_needs(tmp_path):
    app = long_edit_app(tmp_path, lines=3)
    async with app.run_test(size=(80, 24)) as pilot:
        prompt = await ask(pilot, app)
        details = prompt.query_one(".permission-details")
        await wait_for(pilot, lambda: wholly_shown(app, prompt.query_one(".permission-options")))
        assert details.max_scroll_y == 0  # all of it shown, nothing to scroll
        assert app.conversation.region.height > 0  # and the conversation keeps its place
