"""One assistant answer, streamed in as markdown at a cost that stays flat.

Textual's `Markdown.append` re-joins and re-splits the whole source on every
call and lays out every block again, so a long answer slows down chunk after
chunk. `StreamingMarkdown` keeps the cost per chunk independent of what came
before, and the cost per answer close to one render of its blocks:

- `BlockSplitter` cuts the text into top-level blocks as it arrives;
- a finished block is parsed once into Textual's own markdown block widgets
  (headings, lists, tables, highlighted code), rendered once to lines, and its
  widgets are let go;
- only the open tail block is re-parsed, at most once per screen refresh
  (`append` only records text and schedules one update), and updated in place;
- the answer is one widget that draws those lines itself (`_Drawing`), with the
  gaps between blocks as `Markdown` stacks them. The block widgets live in a
  `MarkdownBody` that is never displayed: the screen's layout and paint never
  visit them (a widget tree of ~100 nodes for a ~2 KB answer), and every frame
  composes one layer per line of the answer. A finished answer holds no child
  widget at all.

The lines are what Textual's compositor renders for the very widgets `Markdown`
builds for the same source, laid out at the answer's width, so the answer looks
the same as a `Markdown` showing the whole text. Building, updating and rendering
them uses Textual internals, through `agentcli.frontends.tui.textual_private`.

The model's text is untrusted: each chunk goes through a `MarkdownCleaner`
before anything else sees it, so no escape sequence or control character
reaches the parser, the screen or a copy (`source`). A chunk without any
(nearly all) costs one regex search.
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Sequence
from functools import cache

from markdown_it import MarkdownIt
from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.css.styles import RenderStyles
from textual.geometry import Size, Spacing
from textual.selection import Selection
from textual.strip import Strip
from textual.widget import MountError, Widget
from textual.widgets import Markdown
from textual.widgets.markdown import MarkdownBlock, MarkdownFence

from agentcli.core.terminal_text import MarkdownCleaner
from agentcli.frontends.tui.textual_private import (
    blocks_from_tokens,
    render_detached,
    update_block,
)
from agentcli.frontends.tui.widgets.markdown_baked import BakedLines
from agentcli.frontends.tui.widgets.markdown_blocks import BlockSplitter

# Blocks whose widget can take the content of a newer parse of the same block
# in place (no remount), which is what a growing tail block mostly is.
# (The paragraph class is not exported; Markdown.BLOCKS is its public name.)
_UPDATABLE_IN_PLACE = (Markdown.BLOCKS["paragraph_open"], MarkdownFence)


@cache
def _parser() -> MarkdownIt:
    """The parser Textual's `Markdown` uses by default ("gfm-like"), built once."""
    return MarkdownIt("gfm-like")


class MarkdownBody(Markdown):
    """The (never displayed) container of the block widgets being rendered.

    A `Markdown` so that Textual's block widgets, which expect one as their
    document, and its CSS (`Markdown > MarkdownParagraph`...) work unchanged; its
    padding is the answer's. It never parses on its own: `StreamingMarkdown`
    hands it blocks, and draws their lines itself.
    """

    def __init__(self, owner: StreamingMarkdown) -> None:
        super().__init__()
        self._owner_ref = weakref.ref(owner)
        self.display = False  # laid out and painted by StreamingMarkdown, not the screen

    @property
    def source(self) -> str:
        owner = self._owner_ref()
        return owner.source if owner is not None else ""

    def on_mount(self, event: events.Mount) -> None:
        # Markdown's own handler would parse its (empty) initial document:
        # nothing to do, so skip it (prevent_default skips base class handlers).
        event.prevent_default()

    def build_blocks(self, source: str, first_line: int) -> list[MarkdownBlock]:
        """Block widgets for a piece of the answer starting at line `first_line`."""
        blocks = blocks_from_tokens(self, _parser().parse(source))
        if first_line:
            for block in blocks:
                start, end = block.source_range
                block.source_range = (start + first_line, end + first_line)
        return blocks


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
        self._bench: MarkdownBody | None = None  # holds the block widgets while rendering
        self._frozen_sources: list[tuple[str, int]] = []  # (source, first line)
        self._frozen_lines = 0  # lines in frozen blocks: where the tail starts
        self._tail_widgets: list[MarkdownBlock] = []
        self._shown_tail = ""  # the tail text the tail widgets show
        self._drawing: _Drawing | None = None  # the lines, at one width and theme
        self._render_lock = asyncio.Lock()
        self._scheduled = False
        self._finished = False
        self._rebuild_needed = False
        self._all_taken = False  # every block has been taken from the closed splitter
        self.frozen_block_count = 0
        """How many finished blocks have been parsed and rendered (each once)."""
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
        """The answer is finished and drawn from its lines alone (no child widgets)."""
        return self._finished and self._drawing is not None and self._bench is None

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
            except (MountError, _Removed):
                self._removed_while_drawing()

    def _removed_while_drawing(self) -> None:
        """The answer left the screen (released, pruned) while its blocks were being
        mounted: nothing to draw now; should it come back, it is drawn anew."""
        self._bench = None
        self._tail_widgets = []
        self._shown_tail = ""
        self._rebuild_needed = True

    # -- scheduling ----------------------------------------------------------------

    def _schedule(self) -> None:
        if self._scheduled or not self.is_mounted:
            return
        self._scheduled = True
        self.call_after_refresh(self._request_render)

    def _request_render(self) -> None:
        # Runs among the screen's after-refresh callbacks; render on our own
        # message pump so the screen is not held up by mounting.
        self.call_next(self._scheduled_render)

    async def _scheduled_render(self) -> None:
        self._scheduled = False
        await self.flush()

    def _theme_changed(self, _theme: object) -> None:
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
        if self._finished and self._all_taken and not self._tail_widgets:
            await self._release_bench()
        drawing = self._drawing
        if drawing is not None and (changed or drawing.height != height):
            self.refresh(layout=drawing.height != height)

    async def _bench_body(self) -> MarkdownBody:
        """The hidden container the block widgets are mounted in (made when needed)."""
        if self._bench is None:
            self._bench = MarkdownBody(self)
            await self.mount(self._bench)
            if not self._bench.is_mounted:
                raise _Removed
        return self._bench

    async def _mount_blocks(self, blocks: list[MarkdownBlock]) -> None:
        """Mount block widgets in the hidden container (_Removed if it is going away:
        Textual then mounts nothing, or refuses with a MountError)."""
        await (await self._bench_body()).mount_all(blocks)
        if not all(block.is_mounted for block in blocks):
            raise _Removed

    async def _release_bench(self) -> None:
        """A finished answer keeps its lines only: let the container go."""
        bench, self._bench = self._bench, None
        if bench is not None:
            await bench.remove()
            self.displayed_children  # noqa: B018  (refreshes the cached list: lets it go)

    async def _redraw(self, width: int) -> None:
        """Render every frozen block again from its source, at `width` (the first
        time, or after a resize or theme change); the tail is parsed again after.
        The old lines stay on screen until the new ones are all rendered: an answer
        without them for a moment would be no lines tall, and the layout that saw it
        so could take the conversation's scrollbar away and bring it back."""
        self._rebuild_needed = False
        bench = await self._bench_body()
        if self._tail_widgets:
            await self._remove_blocks(self._tail_widgets)
        self._tail_widgets = []
        self._shown_tail = ""
        drawing = _Drawing(width, bench.styles.gutter)
        blocks: list[MarkdownBlock] = []
        for source, first_line in self._frozen_sources:
            blocks.extend(bench.build_blocks(source, first_line))
        await self._draw_frozen(blocks, drawing)
        self._drawing = drawing

    async def _show_new_text(self) -> bool:
        """Render newly finished blocks and the changed tail; True if anything changed."""
        closed = self._splitter.closed
        finished = self._splitter.take_finished()
        self._all_taken = closed  # after close, the splitter gave every block
        tail = self._splitter.tail
        if not finished and tail == self._shown_tail:
            return False
        await self._bench_body()
        frozen: list[MarkdownBlock] = []
        for block_source in finished:
            frozen.extend(self._render_frozen(block_source, self._frozen_lines))
            self._frozen_sources.append((block_source, self._frozen_lines))
            self._frozen_lines += block_source.count("\n")
        new_tail = self._render_tail(tail, self._frozen_lines) if tail else []
        if finished:
            # The tail widgets showed (part of) the first finished block: gone.
            if self._tail_widgets:
                await self._remove_blocks(self._tail_widgets)
            self._tail_widgets = []
            await self._draw_frozen(frozen)
            if new_tail:
                await self._mount_blocks(new_tail)
            self._tail_widgets = new_tail
        else:
            await self._update_tail(new_tail)
        self._shown_tail = tail
        self._draw_tail()
        return True

    def _render_frozen(self, source: str, first_line: int) -> list[MarkdownBlock]:
        """Parse a finished block, once: its lines are never rendered again (at a width)."""
        self.frozen_block_count += 1
        assert self._bench is not None
        return self._bench.build_blocks(source, first_line)

    def _render_tail(self, source: str, first_line: int) -> list[MarkdownBlock]:
        """Parse the open tail block (again): the only per-update parsing."""
        assert self._bench is not None
        return self._bench.build_blocks(source, first_line)

    async def _draw_frozen(
        self, blocks: list[MarkdownBlock], drawing: _Drawing | None = None
    ) -> None:
        """Mount finished blocks, keep their lines (in `drawing`, the answer's own if
        not given), and let their widgets go. The loop gets a turn after each block's
        render (a few ms each): a key typed while a long answer is drawn is handled
        after one block, not after all of them."""
        if not blocks:
            return
        drawing = drawing or self._drawing
        assert drawing is not None
        await self._mount_blocks(blocks)
        for index, block in enumerate(blocks):
            if index:
                await asyncio.sleep(0)
                if not self.is_mounted:
                    raise _Removed
            drawing.add_frozen(*_block_lines(block, drawing.inner_width))
        await self._remove_blocks(blocks)

    def _draw_tail(self) -> None:
        drawing = self._drawing
        assert drawing is not None
        drawing.set_tail([_block_lines(block, drawing.inner_width) for block in self._tail_widgets])

    async def _update_tail(self, new_tail: list[MarkdownBlock]) -> None:
        """Show a new parse of the tail, updating widgets in place where possible."""
        old_tail = self._tail_widgets
        kept = 0
        for old, new in zip(old_tail, new_tail, strict=False):
            if type(old) is not type(new) or not isinstance(old, _UPDATABLE_IN_PLACE):
                break
            old.source_range = new.source_range
            if not _same_content(old, new):
                await update_block(old, new)
            kept += 1
        stale = old_tail[kept:]
        if stale:
            await self._remove_blocks(stale)
        if new_tail[kept:]:
            await self._mount_blocks(new_tail[kept:])
        self._tail_widgets = old_tail[:kept] + new_tail[kept:]

    async def _remove_blocks(self, widgets: Sequence[Widget]) -> None:
        """Remove block widgets from the container, and let them leave memory.

        Textual's child list caches its last list of displayed children until it is
        asked again: without the fresh look below, the container would keep the block
        widgets it last showed (with their render caches)."""
        bench = self._bench
        if bench is None:
            return
        await bench.remove_children(widgets)
        bench.displayed_children  # noqa: B018  (refreshes the cached list)

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
        """A click on a link in the answer (the lines keep their click actions)."""
        self.app.open_url(href)


class _Removed(Exception):
    """The answer (or its hidden container) left the DOM while blocks were mounted."""


class _Drawing:
    """An answer's lines at one width, stacked as `Markdown` stacks its blocks: the
    body's padding around them, the first block's top margin above, and between two
    blocks the larger of the one's bottom and the other's top margin (blank lines).

    The frozen blocks' lines come first and only grow; the tail's follow them and are
    replaced on each update. Selection and copy work on the lines' own coordinates
    (no padding, no top margin), as `BakedLines` draws them."""

    __slots__ = (
        "_bottom",
        "_frozen_bottom",
        "_frozen_end",
        "_frozen_top",
        "_top",
        "gutter",
        "inner_width",
        "lines",
        "outer_width",
    )

    def __init__(self, outer_width: int, gutter: Spacing) -> None:
        self.outer_width = outer_width
        self.gutter = gutter
        self.inner_width = max(outer_width - gutter.width, 0)
        self.lines = BakedLines(self.inner_width)
        self._top: int | None = None  # the first block's top margin (None: no block)
        self._bottom = 0  # the last block's bottom margin
        self._frozen_end = 0
        self._frozen_top: int | None = None
        self._frozen_bottom = 0

    @property
    def top(self) -> int:
        return self.gutter.top + (self._top or 0)

    @property
    def height(self) -> int:
        stacked = (self._top or 0) + len(self.lines.lines)
        return self.gutter.height + stacked

    def _stack(self, lines: list[Strip], top: int, bottom: int) -> None:
        kept = self.lines.lines
        if self._top is None:
            self._top = top
        else:
            kept.extend([None] * max(self._bottom, top))
        kept.extend(tuple(line) for line in lines)
        self._bottom = bottom

    def add_frozen(self, lines: list[Strip], top: int, bottom: int) -> None:
        """A finished block's lines, after the frozen ones (the tail is dropped)."""
        self._drop_tail()
        self._stack(lines, top, bottom)
        self._frozen_end = len(self.lines.lines)
        self._frozen_top, self._frozen_bottom = self._top, self._bottom

    def set_tail(self, blocks: list[tuple[list[Strip], int, int]]) -> None:
        """The open tail's blocks' lines, in place of the last ones."""
        self._drop_tail()
        for lines, top, bottom in blocks:
            self._stack(lines, top, bottom)

    def _drop_tail(self) -> None:
        del self.lines.lines[self._frozen_end :]
        self._top, self._bottom = self._frozen_top, self._frozen_bottom

    def strip(self, owner: Widget, y: int, width: int) -> Strip:
        blank_style = Style(bgcolor=owner.rich_style.bgcolor)
        inner_y = y - self.top
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


def _block_lines(block: MarkdownBlock, width: int) -> tuple[list[Strip], int, int]:
    """A mounted block's lines at the body's inner `width`, and its top and bottom
    margins: laid out as the body's stream layout lays out a child (full width less
    its side margins, `auto` height within cell-valued min and max heights)."""
    styles = block.styles
    top, right, bottom, left = styles.margin
    block_width = width - left - right
    if block_width <= 0:
        return [], top, bottom
    gutter_width, gutter_height = styles.gutter.totals
    height = (
        block.get_content_height(
            Size(width, 0), block.app.viewport_size, block_width - gutter_width
        )
        + gutter_height
    )
    height = _within(height, styles)
    if height <= 0:
        return [], top, bottom
    try:
        return render_detached(block, Size(block_width, height)), top, bottom
    except Exception:  # the compositor failed on it: its text, plain, rather than a crash
        return _plain_lines(block, block_width), top, bottom


def _plain_lines(block: MarkdownBlock, width: int) -> list[Strip]:
    """A block's source lines as plain text cut to `width` (the fallback rendering)."""
    return [Strip([Segment(line)]).crop(0, width) for line in (block.source or "").splitlines()]


def _within(height: int, styles: RenderStyles) -> int:
    """`height` within a block's min and max heights, where those are cells."""
    max_height = styles.max_height
    if max_height is not None and max_height.is_cells:
        height = min(height, int(max_height.value))
    min_height = styles.min_height
    if min_height is not None and min_height.is_cells:
        height = max(height, int(min_height.value))
    return height


def _same_content(old: MarkdownBlock, new: MarkdownBlock) -> bool:
    """Do two parses of a tail block show the same thing (so no update is needed)?"""
    if isinstance(old, MarkdownFence) and isinstance(new, MarkdownFence):
        return old.code == new.code and old.lexer == new.lexer
    return old.content == new.content  # a paragraph shows its inline Content
