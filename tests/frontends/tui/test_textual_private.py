"""Each Textual private API agentcli uses, exercised against the installed Textual.

`agentcli.frontends.tui.textual_private` is the only module that touches Textual's
internals. If an upgrade renames or changes one of them, a test here fails and
says which; read the module's docstring for what each one buys.
"""

from __future__ import annotations

import os
import re
import signal
import sys
import tomllib
from functools import partial
from importlib.metadata import version
from pathlib import Path

import pexpect
from markdown_it import MarkdownIt
from textual.app import App, ComposeResult
from textual.drivers._writer_thread import MAX_QUEUED_WRITES, WriterThread
from textual.drivers.linux_driver import LinuxDriver
from textual.widgets import Markdown

from agentcli.frontends.tui.terminal_driver import TerminalStream
from agentcli.frontends.tui.textual_private import (
    driver_output,
    screen_lines,
    set_driver_output,
)
from tests.support.processes import wait_for_exit

ROOT = Path(__file__).resolve().parents[3]
H1, PARAGRAPH = Markdown.BLOCKS["h1"], Markdown.BLOCKS["paragraph_open"]  # not exported


def parse(source: str):
    return MarkdownIt("gfm-like").parse(source)


class Host(App[None]):
    def compose(self) -> ComposeResult:
        yield Markdown()


def screen_text(app: App) -> str:
    return "\n".join(strip.text.rstrip() for strip in screen_lines(app.screen))


def test_the_installed_textual_is_the_pinned_one():
    """These tests vouch for one Textual: the exact version pyproject.toml pins."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    pins = [d for d in project["dependencies"] if re.match(r"textual(?![\w.-])", d)]
    assert pins == [f"textual=={version('textual')}"]


# -- Widget._layout_updates ---------------------------------------------------------


async def test_a_height_that_changed_while_a_layout_was_pending_is_laid_out():
    """Textual counts a layout update only when none is pending, and caches the box
    model on that count: a widget that grows meanwhile keeps its old height with
    Textual's own `refresh(layout=True)`, and shows its new one with the `refresh`
    that `count_every_layout_request` installs (importing the widgets does)."""
    from textual.widget import Widget

    import agentcli.frontends.tui.widgets  # noqa: F401  (installs it)
    from agentcli.frontends.tui.textual_private import _textual_refresh

    class Grows(Widget):
        DEFAULT_CSS = "Grows { height: auto; }"
        lines = 2

        def get_content_height(self, container, viewport, width: int) -> int:
            return self.lines

    textual_own = partial(_textual_refresh, layout=True)
    installed = partial(Widget.refresh, layout=True)
    assert Widget.refresh is not _textual_refresh
    for redo, expected in ((textual_own, 2), (installed, 5)):
        app = _Page(Grows())
        async with app.run_test(size=(40, 20)) as pilot:
            widget = app.query_one(Grows)
            await pilot.pause()
            widget.refresh(layout=True)  # a layout pending...
            app.screen._clear_arrangement_cache()  # ...another widget's change, and the
            app.screen._refresh_layout()  # screen lays out meanwhile (cached: 2 lines)
            widget.lines = 5
            redo(widget)
            for _ in range(3):
                await pilot.pause()
            assert widget.size.height == expected


async def test_a_static_updated_twice_in_a_frame_shows_its_last_text_whole():
    """`Static.update` asks for a layout: a note, a todo list or a pane's body whose
    text grows while the screen is laid out in between shows every line of it."""
    from textual.widgets import Static

    app = _Page(Static("one"))
    async with app.run_test(size=(40, 20)) as pilot:
        static = app.query_one(Static)
        await pilot.pause()
        static.update("one\ntwo")  # a layout pending...
        app.screen._clear_arrangement_cache()
        app.screen._refresh_layout()  # ...the screen laid out meanwhile (2 lines)
        static.update("one\ntwo\nthree\nfour")
        for _ in range(3):
            await pilot.pause()
        assert static.size.height == 4


async def test_a_finished_tool_pane_shows_its_summary_though_a_layout_was_pending():
    """The pane's output and then its one-line summary come in updates of its body; a
    layout of the body still pending then (from the update a moment before), with the
    screen laid out meanwhile, left the body at its old height (a finished Read was
    once drawn with no summary line)."""
    from agentcli.frontends.tui.widgets.tool_pane import ToolPane

    app = _Page(ToolPane("toolu_1", "Bash", {"command": "ls"}, "ls"))
    async with app.run_test(size=(80, 20)) as pilot:
        pane = app.query_one(ToolPane)
        pane.set_state("running")
        await pilot.pause()
        pane.add_output("a\nb\nc\n")  # a layout of the body pending...
        app.screen._clear_arrangement_cache()  # ...another widget's change, and the
        app.screen._refresh_layout()  # screen lays out meanwhile (cached: 3 lines)
        pane.add_output("d\ne\n")
        for _ in range(3):
            await pilot.pause()
        assert pane._body.size.height == 5  # every line of its output so far
        pane.add_output("f\n")
        app.screen._clear_arrangement_cache()
        app.screen._refresh_layout()
        pane.finish("done", {"content": ""}, None)
        for _ in range(3):
            await pilot.pause()
        assert pane._body.size.height == 1  # the summary line, nothing left over


async def test_a_stream_item_that_grew_inside_is_laid_out_with_a_later_item_changed():
    """`layout: stream` (the conversation) reuses the heights of its items above the
    first one the screen marked as changed; an item whose content grew deep inside
    it (a diff mounted in a tool pane) went unmarked when an item after it changed in
    the same frame (the answer after the edit), and kept its old height with Textual's
    own `StreamLayout.arrange`; with `lay_out_nested_changes_in_streams` (importing
    the widgets installs it) it grows."""
    from textual.containers import Vertical
    from textual.layouts.stream import StreamLayout
    from textual.widgets import Static

    import agentcli.frontends.tui.widgets  # noqa: F401  (installs it)
    from agentcli.frontends.tui.textual_private import _textual_stream_arrange

    class Stream(Vertical):
        DEFAULT_CSS = "Stream { layout: stream; } Stream > Vertical { height: auto; }"

    class Page(App[None]):
        def compose(self) -> ComposeResult:
            with Stream():
                with Vertical(id="item"):
                    yield Static("one", id="inside")
                yield Static("later", id="later")

    installed = StreamLayout.arrange
    assert installed is not _textual_stream_arrange
    try:
        for arrange, expected in ((_textual_stream_arrange, 1), (installed, 3)):
            StreamLayout.arrange = arrange  # type: ignore[method-assign]
            app = Page()
            async with app.run_test(size=(40, 20)) as pilot:
                await pilot.pause()
                app.query_one("#inside", Static).update("1\n2\n3")  # deep inside the item
                app.query_one("#later", Static).update("x\ny")  # and an item after it
                for _ in range(3):
                    await pilot.pause()
                assert app.query_one("#item").size.height == expected
    finally:
        StreamLayout.arrange = installed  # type: ignore[method-assign]


class _Page(App[None]):
    def __init__(self, widget) -> None:
        super().__init__()
        self.widget = widget

    def compose(self) -> ComposeResult:
        yield self.widget


# -- LinuxDriver._file -------------------------------------------------------------


async def test_driver_output_is_the_linux_drivers_stream():
    saved = {s: signal.getsignal(s) for s in (signal.SIGTSTP, signal.SIGCONT)}
    try:
        driver = LinuxDriver(App())
    finally:
        for signum, handler in saved.items():
            signal.signal(signum, handler)
    assert driver_output(driver) is sys.__stderr__
    replacement = TerminalStream(sys.__stderr__)
    set_driver_output(driver, replacement)  # type: ignore[arg-type]
    assert driver_output(driver) is replacement


COUNTING_APP = """
from textual.app import App
from textual.drivers.linux_driver import LinuxDriver
from agentcli.frontends.tui.textual_private import driver_output, set_driver_output

class Counting:
    def __init__(self, stream):
        self.stream, self.written = stream, 0
    def write(self, text):
        self.written += len(text)
        return self.stream.write(text)
    def flush(self):
        self.stream.flush()
    def fileno(self):
        return self.stream.fileno()

streams = []

class Driver(LinuxDriver):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        streams.append(Counting(driver_output(self)))
        set_driver_output(self, streams[0])

class OneFrame(App):
    def get_driver_class(self):
        return Driver
    def on_mount(self):
        self.call_after_refresh(self.exit)

OneFrame().run()
print("written through our stream:", streams[0].written)
"""


def test_the_linux_driver_writes_the_screen_through_driver_output():
    """In a real terminal, everything the driver writes goes through the stream set."""
    child = pexpect.spawn(
        sys.executable,
        ["-c", COUNTING_APP],
        env={**os.environ, "TERM": "xterm-256color"},
        dimensions=(24, 80),
        encoding="utf-8",
        timeout=60,
    )
    try:
        child.expect(r"written through our stream: (\d+)")
        assert int(child.match.group(1)) > 100  # the alternate screen, a frame, the restore
        wait_for_exit(child)
    finally:
        child.close(force=True)
    assert child.exitstatus == 0


def test_textuals_writer_thread_keeps_draining_after_the_terminal_closed():
    """The driver's writer thread dies on a failed write; TerminalStream never fails."""

    class ClosedTerminal:
        def write(self, text: str) -> int:
            raise OSError(5, "Input/output error")

        def flush(self) -> None:
            raise OSError(5, "Input/output error")

    writer = WriterThread(TerminalStream(ClosedTerminal()))  # type: ignore[arg-type]
    writer.start()
    for _ in range(MAX_QUEUED_WRITES * 4):  # more than its queue holds: would block if it died
        writer.write("frame")
    writer.stop()
    assert not writer.is_alive()


async def test_a_removed_widget_leaves_no_rendered_lines_behind():
    """Issue 25: Textual 8.2.8 caches `StylesCache.get_inner_outer` with an
    `lru_cache` on the method, so its key holds the StylesCache (with every line it
    rendered) of up to 1024 widgets after they are removed: about 20 MB and 150,000
    objects in a live session, walked by every full garbage collection (a fifth of
    the CPU of a streamed answer). With `free_removed_widgets_render_caches()` in
    force (agentcli does it on import of the conversation), a removed widget's render
    cache leaves memory with it."""
    import gc
    import weakref

    from textual._styles_cache import StylesCache
    from textual.containers import Vertical
    from textual.widgets import Static

    import agentcli.frontends.tui.widgets.conversation  # noqa: F401  (puts the fix in force)

    class Page(App[None]):
        def compose(self) -> ComposeResult:
            yield Vertical(id="page")

    app = Page()
    async with app.run_test(size=(60, 40)) as pilot:
        page = app.query_one("#page", Vertical)
        caches: list[weakref.ref[StylesCache]] = []
        for n in range(10):
            widgets = [Static(f"line {n}.{k}\n" * 3) for k in range(5)]
            await page.mount_all(widgets)
            await pilot.pause()  # rendered: each widget's cache holds its lines
            caches.extend(weakref.ref(w._styles_cache) for w in widgets)
            await page.remove_children(widgets)
            del widgets
            await pilot.pause()
        gc.collect()
        alive = sum(ref() is not None for ref in caches)
        assert alive <= 5  # Textual may keep the last removed batch a moment
