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
from importlib.metadata import version
from pathlib import Path

import pexpect
from markdown_it import MarkdownIt
from textual.app import App, ComposeResult
from textual.drivers._writer_thread import MAX_QUEUED_WRITES, WriterThread
from textual.drivers.linux_driver import LinuxDriver
from textual.widgets import Markdown
from textual.widgets.markdown import MarkdownFence

from agentcli.frontends.tui.terminal_driver import TerminalStream
from agentcli.frontends.tui.textual_private import (
    blocks_from_tokens,
    driver_output,
    render_detached,
    screen_lines,
    set_driver_output,
    update_block,
)

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


# -- Markdown._parse_markdown ------------------------------------------------------


async def test_blocks_from_tokens_builds_textuals_block_widgets():
    source = "# Title\n\nSome *text*.\n\n```python\nx = 1\n```\n"
    app = Host()
    async with app.run_test():
        blocks = blocks_from_tokens(app.query_one(Markdown), parse(source))
    assert [type(block) for block in blocks] == [H1, PARAGRAPH, MarkdownFence]
    assert [block.source_range for block in blocks] == [(0, 1), (2, 3), (4, 7)]
    assert not any(block.is_mounted for block in blocks)
    # What StreamingMarkdown compares to decide whether the tail changed:
    assert blocks[1].content.plain == "Some text."
    assert (blocks[2].code, blocks[2].lexer) == ("x = 1", "python")


# -- MarkdownBlock._update_from_block ----------------------------------------------


async def test_update_block_changes_a_mounted_paragraph_and_fence_in_place():
    app = Host()
    async with app.run_test(size=(60, 20)) as pilot:
        document = app.query_one(Markdown)
        old = blocks_from_tokens(document, parse("Some text\n\n```\nx = 1\n```\n"))
        await document.mount_all(old)
        await pilot.pause()
        new = blocks_from_tokens(document, parse("Some text, longer\n\n```\nx = 1\ny = 2\n```\n"))
        for mounted, newer in zip(old, new, strict=True):
            await update_block(mounted, newer)
        await pilot.pause()
        assert list(document.children) == old  # the same widgets, still mounted
        assert old[0].content.plain == "Some text, longer"
        assert old[1].code == "x = 1\ny = 2"
        shown = screen_text(app)
        assert "Some text, longer" in shown and "y = 2" in shown


# -- textual._compositor.Compositor, Screen._compositor -----------------------------


async def test_render_detached_renders_widgets_the_screen_never_laid_out():
    """StreamingMarkdown's blocks sit in a container that is not displayed: laid out
    and rendered by render_detached, they show what the same blocks show on screen."""

    class Both(App[None]):
        def compose(self) -> ComposeResult:
            yield Markdown(id="shown")
            yield Markdown(id="hidden")

    source = (
        "Intro with `code` and a [link](https://example.com).\n\n- one\n- two\n\n```\ncode\n```\n"
    )
    app = Both()
    async with app.run_test(size=(60, 20)) as pilot:
        shown, hidden = app.query_one("#shown", Markdown), app.query_one("#hidden", Markdown)
        hidden.display = False
        await shown.mount_all(blocks_from_tokens(shown, parse(source)))
        detached = blocks_from_tokens(hidden, parse(source))
        await hidden.mount_all(detached)
        await pilot.pause()
        screen = screen_lines(app.screen)
        for block, twin in zip(shown.children, detached, strict=True):
            region = block.region
            assert not twin.region  # the screen has no place for it
            lines = render_detached(twin, region.size)
            assert len(lines) == region.height > 0
            on_screen = [
                screen[y].crop(region.x, region.right) for y in range(region.y, region.bottom)
            ]
            assert [list(line) for line in lines] == [list(line) for line in on_screen]
        assert not any(twin.region for twin in detached)  # the screen's map is untouched


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
        child.expect(pexpect.EOF)
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
