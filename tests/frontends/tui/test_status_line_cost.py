"""Issue 25: the status line redraws ten times a second and on every streamed chunk.
Its size is fixed (one row, the screen's width), so a redraw repaints that row and
never lays out the whole screen again: each layout walks every widget of the
conversation (a few hundred tool panes in a long loop), which cost about half a
second of CPU per tool round."""

from __future__ import annotations

from textual.app import App, ComposeResult

from agentcli.frontends.tui.widgets.status import StatusLine


class Host(App[None]):
    CSS = "#status-line { height: 1; padding: 0 1; }"

    def compose(self) -> ComposeResult:
        yield StatusLine(id="status-line")


async def test_a_redraw_of_the_status_line_repaints_without_a_layout():
    app = Host()
    async with app.run_test(size=(80, 10)) as pilot:
        line = app.query_one(StatusLine)
        line.start("Thinking")
        await pilot.pause()
        asked: list[bool] = []
        original = line.refresh

        def recorded(*regions, **kwargs):
            asked.append(bool(kwargs.get("layout")))
            return original(*regions, **kwargs)

        line.refresh = recorded  # type: ignore[method-assign]
        line.set_phase("Writing")
        line.output_tokens = 12345
        line.tool_running("t1", "Bash")
        line.tool_finished("t1")
        await pilot.pause()
        assert asked and not any(asked)
        assert "Writing" in str(line.render()) and "12345" in str(line.render())


async def test_a_status_line_without_a_fixed_height_still_lays_out():
    """Where the CSS does not fix its height (a theme, another app), a redraw may
    change its size: it then asks for a layout as before."""

    class Loose(App[None]):
        def compose(self) -> ComposeResult:
            yield StatusLine()

    app = Loose()
    async with app.run_test(size=(80, 10)) as pilot:
        line = app.query_one(StatusLine)
        line.start("Thinking")
        await pilot.pause()
        asked: list[bool] = []
        original = line.refresh

        def recorded(*regions, **kwargs):
            asked.append(bool(kwargs.get("layout")))
            return original(*regions, **kwargs)

        line.refresh = recorded  # type: ignore[method-assign]
        line.set_phase("Writing")
        assert asked == [True]
