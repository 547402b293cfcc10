"""One assistant answer, streamed in as markdown at a cost that stays flat.

Textual's `Markdown.append` re-joins and re-splits the whole source on every
call and lays out every block again, so a long answer slows down chunk after
chunk. `StreamingMarkdown` keeps the cost per chunk independent of what came
before, and the cost per answer close to one render of its blocks:

- `BlockSplitter` cuts the text into top-level blocks as it arrives;
- a finished block is rendered once to lines (`MarkdownRenderer`: Rich's
  markdown renderer in the app's theme, no widget at all);
- only the open tail block is rendered again, at most once per screen refresh
  (`append` only records text and schedules one update);
- the answer is one widget that draws those lines itself (`_Drawing`), one blank
  line between blocks, so every frame composes one layer per line of the answer
  and the widget holds no child widget, streaming or finished.

The lines are rendered again only when the width or the theme changes.

The model's text is untrusted: each chunk goes through a `MarkdownCleaner`
before anything else sees it, so no escape sequence or control character
reaches the renderer, the screen or a copy (`source`). A chunk without any
(nearly all) costs one regex search. A link opens on click only if it is a web
or mail address.
"""

from __future__ import annotations

import asyncio
from urllib.parse import urlsplit

from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.geometry import Size, Spacing
from textual.selection import Selection
from textual.strip import Strip
from textual.widget import Widget

from agentcli.core.terminal_text import MarkdownCleaner
from agentcli.frontends.tui.widgets.markdown_baked import BakedLines
from agentcli.frontends.tui.widgets.markdown_blocks import BlockSplitter
from agentcli.frontends.tui.widgets.markdown_render import Line, MarkdownLook, MarkdownRenderer

GUTTER = Spacing(0, 2, 0, 2)
"""The answer's padding: two columns on each side (within the style sheet's own)."""

BLOCK_GAP = 1
"""Blank lines between two blocks."""

OPENABLE_SCHEMES = frozenset({"http", "https", "mailto"})
"""Links a click opens; anything else (file:, a custom handler...) the model wrote is not."""


class StreamingMarkdown(Widget):
    """A streamed markdown answer: `append(chunk)` often, `await finish()` once."""

    DEFAULT_CSS = """
    StreamingMarkdown {
        width: 1fr;
        height: auto;
    }
    """

    def __init__(
        self,
        markdown: str = "",
        *,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self._chunks: list[str] = []
        self._cleaner = MarkdownCleaner()
        self._splitter = BlockSplitter()
        self._renderer: MarkdownRenderer | None = None  # in the current theme
        self._frozen_sources: list[str] = []
        self._shown_tail = ""  # the tail text the drawing shows
        self._drawing: _Drawing | None = None  # the lines, at one width and theme
        self._render_lock = asyncio.Lock()
        self._scheduled = False
        self._finished = False
        self._rebuild_needed = False
        self._all_taken = False  # every block has been taken from the closed splitter
        self.frozen_block_count = 0
        """How many finished blocks have been rendered (each once, at a width and theme)."""
        if markdown:
            self.append(markdown)

    def on_mount(self) -> None:
        self.app.theme_changed_signal.subscribe(self, self._theme_changed)
        if self._chunks or self._splitter.closed:
            self._scheduled = False
            self._schedule()

    def on_unmount(self) -> None:
        # The signal's weak key is kept alive by our bound-method callback: without
        # this, every answer ever removed from the screen would stay in memory.
        self.app.theme_changed_signal.unsubscribe(self)

    def on_resize(self, event: events.Resize) -> None:
        # Height changes all the time while streaming; only a new width
        # makes the lines wrong (or lets the first ones be drawn).
        drawing = self._drawing
        if drawing is None or drawing.outer_width != self.content_size.width:
            self._scheduled = False
            self._schedule()

    # -- the public interface ---------------------------------------------------

    @property
    def source(self) -> str:
        """All the markdown appended so far, as given less any control characters."""
        if len(self._chunks) > 1:
            self._chunks = ["".join(self._chunks)]
        return self._chunks[0] if self._chunks else ""

    def append(self, text: str) -> None:
        """Add a chunk. Cheap: the screen catches up once per refresh."""
        if self._finished:
            raise RuntimeError("StreamingMarkdown.append() after finish()")
        text = self._cleaner.feed(text)
        if not text:
            return
        self._chunks.append(text)
        self._splitter.feed(text)
        self._schedule()

    @property
    def flattened(self) -> bool:
        """The answer is finished and every block of it is drawn."""
        return self._finished and self._all_taken and self._drawing is not None

    @property
    def finished(self) -> bool:
        """No more text will come (`finish` or `complete` was called)."""
        return self._finished

    def complete(self, markdown: str) -> None:
        """The whole answer at once, before it is mounted (a resumed or rebuilt one):
        rendered in full when mounted, with no `finish` to await."""
        self.append(markdown)
        self._finished = True
        self._splitter.close()

    async def finish(self) -> None:
        """The answer is complete: render everything, including the last block."""
        self._finished = True
        self._splitter.close()
        await self.flush()

    async def flush(self) -> None:
        """Render what has been appended so far now (normally done per refresh)."""
        async with self._render_lock:
            try:
                await self._apply()
            except _Removed:
                self._rebuild_needed = True  # should it come back, it is drawn anew

    # -- scheduling ----------------------------------------------------------------

    def _schedule(self) -> None:
        if self._scheduled or not self.is_mounted:
            return
        self._scheduled = True
        self.call_after_refresh(self._request_render)

    def _request_render(self) -> None:
        # Runs among the screen's after-refresh callbacks; render on our own
        # message pump so the screen is not held up.
        self.call_next(self._scheduled_render)

    async def _scheduled_render(self) -> None:
        self._scheduled = False
        await self.flush()

    def _theme_changed(self, _theme: object) -> None:
        self._renderer = None
        self._rebuild_needed = True
        self._scheduled = False
        self._schedule()

    # -- rendering ----------------------------------------------------------------

    def _outer_width(self) -> int:
        """The width the answer's lines are for: its own once laid out, before that
        the one its parent's layout will give it (so a resumed answer shows in the
        frame it is mounted in)."""
        if self.size.width > 0:
            return self.content_size.width
        parent = self.parent
        if not isinstance(parent, Widget):
            return 0
        styles = self.styles
        return parent.scrollable_content_region.width - styles.margin.width - styles.gutter.width

    def _current_renderer(self) -> MarkdownRenderer:
        if self._renderer is None:
            rich_style = self.rich_style
            base = Style(color=rich_style.color, bgcolor=rich_style.bgcolor)
            app = self.app
            look = MarkdownLook.from_theme(app.theme_variables, app.current_theme.dark, base)
            self._renderer = MarkdownRenderer(look)
        return self._renderer

    async def _apply(self) -> None:
        if not self.is_mounted:
            return
        width = self._outer_width()
        if width <= 0:
            return  # not laid out yet: on_resize comes back
        height = self._drawing.height if self._drawing is not None else 0
        redrawn = (
            self._drawing is None or self._drawing.outer_width != width or self._rebuild_needed
        )
        if redrawn:
            await self._redraw(width)
        changed = await self._show_new_text() or redrawn
        drawing = self._drawing
        if drawing is not None and drawing.height != height:
            self.refresh(layout=True)
        elif changed:
            self.refresh()

    async def _redraw(self, width: int) -> None:
        """Render every frozen block again, at `width` (the first time, or after a
        resize or theme change); the tail is rendered again after. The old lines stay
        on screen until the new ones are all rendered: an answer without them for a
        moment would be no lines tall, and the layout that saw it so could take the
        conversation's scrollbar away and bring it back."""
        self._rebuild_needed = False
        self._shown_tail = ""
        drawing = _Drawing(width, GUTTER)
        await self._draw_frozen(self._frozen_sources, drawing)
        self._drawing = drawing

    async def _show_new_text(self) -> bool:
        """Render newly finished blocks and the changed tail; True if anything changed."""
        closed = self._splitter.closed
        finished = self._splitter.take_finished()
        tail = self._splitter.tail
        if not finished and tail == self._shown_tail:
            self._all_taken = closed  # after close, the splitter gave every block
            return False
        drawing = self._drawing
        assert drawing is not None
        self.frozen_block_count += len(finished)
        self._frozen_sources.extend(finished)
        await self._draw_frozen(finished, drawing)
        drawing.set_tail(self._block_lines(tail, drawing.inner_width) if tail else None)
        self._shown_tail = tail
        self._all_taken = closed
        return True

    async def _draw_frozen(self, sources: list[str], drawing: _Drawing) -> None:
        """Render finished blocks into `drawing`, once each. The loop gets a turn
        after each block (about a millisecond each): a key typed while a long
        answer is drawn is handled after one block, not after all of them."""
        for index, source in enumerate(sources):
            if index:
                await asyncio.sleep(0)
                if not self.is_mounted:
                    raise _Removed
            drawing.add_frozen(self._block_lines(source, drawing.inner_width))

    def _block_lines(self, source: str, width: int) -> list[Line]:
        """One block's lines at `width`; its plain text if the renderer fails on it
        (no traceback reaches a person)."""
        try:
            return self._current_renderer().lines(source, width)
        except Exception:
            return _plain_lines(source, width)

    # -- drawing the lines ------------------------------------------------------------

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return self._drawing.height if self._drawing is not None else 0

    def render_line(self, y: int) -> Strip:
        drawing = self._drawing
        if drawing is None:
            return Strip.blank(self.content_size.width, Style(bgcolor=self.rich_style.bgcolor))
        return drawing.strip(self, y, self.content_size.width)

    def get_selection(self, selection: Selection) -> tuple[str, str] | None:
        """The plain text under a selection, for copying (Ctrl+C / the clipboard)."""
        if self._drawing is None:
            return None
        return selection.extract(self._drawing.lines.text()), "\n"

    def selection_updated(self, selection: Selection | None) -> None:
        self.refresh()

    def action_link(self, href: str) -> None:
        """A click on a link in the answer: opened if it is a web or mail address."""
        scheme = urlsplit(href).scheme.lower()
        if scheme in OPENABLE_SCHEMES:
            self.app.open_url(href)
        else:
            self.notify(
                f"Not opening {href[:80]!r}: only web and mail links open.", severity="warning"
            )


class _Removed(Exception):
    """The answer left the DOM while its blocks were being drawn."""


class _Drawing:
    """An answer's lines at one width: the padding around them, `BLOCK_GAP` blank
    lines between two blocks.

    The frozen blocks' lines come first and only grow; the tail's follow them and are
    replaced on each update. Selection and copy work on the lines' own coordinates
    (no padding), as `BakedLines` draws them."""

    __slots__ = ("_frozen_end", "gutter", "inner_width", "lines", "outer_width")

    def __init__(self, outer_width: int, gutter: Spacing) -> None:
        self.outer_width = outer_width
        self.gutter = gutter
        self.inner_width = max(outer_width - gutter.width, 0)
        self.lines = BakedLines(self.inner_width)
        self._frozen_end = 0

    @property
    def height(self) -> int:
        return self.gutter.height + len(self.lines.lines)

    def _stack(self, lines: list[Line]) -> None:
        if not lines:
            return
        kept = self.lines.lines
        if kept:
            kept.extend([None] * BLOCK_GAP)
        kept.extend(lines)

    def add_frozen(self, lines: list[Line]) -> None:
        """A finished block's lines, after the frozen ones (the tail is dropped)."""
        self._drop_tail()
        self._stack(lines)
        self._frozen_end = len(self.lines.lines)

    def set_tail(self, lines: list[Line] | None) -> None:
        """The open tail block's lines, in place of the last ones."""
        self._drop_tail()
        if lines:
            self._stack(lines)

    def _drop_tail(self) -> None:
        del self.lines.lines[self._frozen_end :]

    def strip(self, owner: Widget, y: int, width: int) -> Strip:
        blank_style = Style(bgcolor=owner.rich_style.bgcolor)
        inner_y = y - self.gutter.top
        if not 0 <= inner_y < len(self.lines.lines):
            return Strip.blank(width, blank_style)
        inner = self.lines.strip(owner, inner_y, self.inner_width)
        left = self.gutter.left
        right = width - left - self.inner_width
        parts = [inner]
        if left > 0:
            parts.insert(0, Strip.blank(left, blank_style))
        if right > 0:
            parts.append(Strip.blank(right, blank_style))
        return Strip.join(parts) if len(parts) > 1 else inner


def _plain_lines(source: str, width: int) -> list[Line]:
    """A block's source lines as plain text cut to `width` (the fallback rendering)."""
    return [tuple(Strip([Segment(line)]).crop(0, width)) for line in source.splitlines()]
