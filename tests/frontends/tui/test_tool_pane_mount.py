"""A tool call can finish at any moment of its pane's own start-up; the diff is never lost.

The engine's events do not wait for Textual: `ToolCallFinished` may reach a
pane before it composed, between compose and mount, or after. Each order is
forced here deterministically, and each must end with the diff on screen.
"""

from __future__ import annotations

import pytest
from textual.app import App, ComposeResult

from agentcli.frontends.tui.widgets.conversation import Conversation
from agentcli.frontends.tui.widgets.diff_view import DiffView
from agentcli.frontends.tui.widgets.tool_pane import ToolPane
from agentcli.tools.diff import build_diff

DIFF = build_diff("config.py", "value = 1\n", "value = 2\n")
RESULT = {"content": "The file config.py has been updated."}


class FinishesAfterCompose(ToolPane):
    """Finishes in the window after its children were composed, before it is mounted."""

    def compose(self):
        yield from super().compose()
        self.finish("done", RESULT, DIFF)


class Host(App):
    def compose(self) -> ComposeResult:
        yield Conversation(id="conversation")


def diff_views(pane: ToolPane) -> list[DiffView]:
    return list(pane.query(DiffView))


@pytest.mark.parametrize("moment", ["before compose", "after compose", "after mount"])
async def test_the_diff_is_shown_whenever_the_call_finishes(moment):
    app = Host()
    async with app.run_test() as pilot:
        conversation = app.query_one(Conversation)
        if moment == "after compose":
            pane = FinishesAfterCompose("toolu_1", "Edit", {}, "config.py")
            conversation.add_widget(pane)
        else:
            pane = conversation.add_tool("toolu_1", "Edit", {}, "config.py")
            if moment == "before compose":
                pane.finish("done", RESULT, DIFF)
            else:
                await pilot.pause()
                assert pane.is_mounted
                pane.finish("done", RESULT, DIFF)
        await pilot.pause()
        await pilot.pause()
        views = diff_views(pane)
        assert len(views) == 1, f"finished {moment}: {len(views)} diff views"
        assert "+ value = 2" in str(views[0].render())
        assert pane.summary.startswith("Updated config.py")
