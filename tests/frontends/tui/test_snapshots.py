"""Snapshots (pytest-textual-snapshot) of the screens people see most.

Update after an intended change with `pytest tests/frontends/tui/test_snapshots.py --snapshot-update`
and look at the report before committing the new SVGs.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from agentcli.permissions.types import PermissionMode
from agentcli.tools.registry import builtin_tools
from tests.engine.scripted import Response, ScriptedProvider, text, tool_use
from tests.frontends.tui.helpers import (
    held_still,
    idle,
    make_app,
    question_ready,
    send,
    wait_for,
)

SIZE = (90, 32)
# Every app here is built with cursor_blink=False: a blinking cursor is in one
# phase or the other depending on the machine's load when the picture is taken.
PROJECT = Path("/project")  # shown in the banner; a fixed path keeps snapshots stable


def edit_app(root: Path, *, mode=PermissionMode.BYPASS, theme="dark"):
    target = root / "config.py"
    target.write_text("# settings\nname = 'demo'\nvalue = 1\ndebug = False\n")
    edit = {"file_path": str(target), "old_string": "value = 1", "new_string": "value = 2"}
    provider = ScriptedProvider(
        Response(
            [
                text("I'll read config.py first."),
                tool_use("Read", {"file_path": str(target)}, "toolu_r"),
            ]
        ),
        Response([text("Now I'll change the value."), tool_use("Edit", edit, "toolu_e")]),
        Response([text("Changed `value` to **2** in `config.py`.")]),
    )
    tools = [builtin_tools().get("Read"), builtin_tools().get("Edit")]
    return make_app(
        provider, root, tools, mode=mode, cwd=PROJECT, theme_name=theme, cursor_blink=False
    )


async def settle(pilot, app) -> None:
    """Let every answer finish its final render pass before the picture is taken, and
    the conversation stop moving: on a loaded machine its last scroll to the end can
    come a frame after a fixed number of pauses (a snapshot one row off)."""
    for _ in range(2):
        for answer in app.conversation.query(".assistant-message"):
            await answer.flush()
        await pilot.pause()
        await pilot.wait_for_scheduled_animations()
        await pilot.pause()
    conversation = app.conversation
    place = held_still(
        lambda: (conversation.scroll_y, conversation.max_scroll_y, conversation.region)
    )
    await wait_for(pilot, place, "the conversation to hold still")


def quiet_status(app) -> None:
    """The spinner and the clock change every frame; a snapshot cannot hold them."""
    app.status_line.stop()


def test_first_screen(snap_compare, tmp_path):
    app = make_app(ScriptedProvider(), tmp_path, cwd=PROJECT, cursor_blink=False)
    assert snap_compare(app, terminal_size=SIZE)


@pytest.mark.parametrize("theme", ["dark", "light", "high-contrast"])
def test_finished_turn_with_a_diff(snap_compare, tmp_path, theme):
    app = edit_app(tmp_path, theme=theme)

    async def run_before(pilot):
        await send(pilot, "Change value to 2")
        await idle(pilot, app)
        await settle(pilot, app)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_permission_prompt_for_an_edit(snap_compare, tmp_path):
    app = edit_app(tmp_path, mode=PermissionMode.DEFAULT)

    async def run_before(pilot):
        await send(pilot, "Change value to 2")
        await wait_for(pilot, lambda: question_ready(app), "the permission prompt")
        quiet_status(app)
        await settle(pilot, app)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


@pytest.mark.parametrize("size", [(40, 12), (80, 24)], ids=["40x12", "80x24"])
def test_permission_prompt_with_a_long_diff_keeps_its_answers_in_view(snap_compare, tmp_path, size):
    """The 200-line diff scrolls inside the question; the answers stay on screen (at
    40x12 the question goes compact: no frame, the answers led by their keys)."""
    from tests.frontends.tui.test_permission_layout import long_edit_app

    app = long_edit_app(tmp_path, cwd=PROJECT, cursor_blink=False)

    async def run_before(pilot):
        await send(pilot, "Change every line")
        await wait_for(pilot, lambda: question_ready(app), "the permission prompt")
        quiet_status(app)
        await settle(pilot, app)

    assert snap_compare(app, terminal_size=size, run_before=run_before)
