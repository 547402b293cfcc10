"""One assistant answer, streamed in as markdown at a cost that stays flat.

Textual's `Markdown.append` re-joins and re-splits the whole source on every
call and lays out every block again, so a long answer slows down chunk after
chunk. `StreamingMarkdown` keeps the cost per chunk independent of what came
before:

- `BlockSplitter` cuts the text into top-level blocks as it arrives;
- a finished block is parsed once and mounted as Textual's own markdown block
  widgets (headings, lists, tables, highlighted code), which are never touched
  again;
- only the open tail block is re-parsed, at most once per screen refresh
  (`append` only records text and schedules one update);
- the blocks live in a `Markdown` subclass with `layout: stream`, whose layout
  reuses the placements of the unchanged blocks in front of the tail;
- once laid out, finished blocks are baked into lines (`BakedBlocks`), and a
  finished answer whose blocks are all baked becomes one widget: the answer
  draws those lines itself and lets its body (and the baked blocks' widget)
  go. Every frame composes each widget that covers a line, so a finished
  answer on screen costs one layer per line instead of three, and the layout
  has one node per answer to visit.

The rendered blocks are the very widgets `Markdown` builds for the same source,
so the answer looks the same as a `Markdown` showing the whole text. Building
and updating them uses Textual internals, through `agentcli.frontends.tui.textual_private`.

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
from rich.style import Style
from textual import events
from textual.app import ComposeResult
from textual.geometry import Size
from textual.selection import Selection
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import Markdown
from textual.widgets.markdown import MarkdownBlock, MarkdownFence

from agentcli.core.terminal_text import MarkdownCleaner
from agentcli.frontends.tui.textual_private import blocks_from_tokens, render_lines, update_block
from agentcli.frontends.tui.widgets.markdown_baked import (
    BakedBlocks,
    BakedLines,
    render_block_lines,
)
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
    """The container of the rendered blocks.

    A `Markdown` so that Textual's block widgets, which expect one as their
    document, and its CSS (`Markdown > MarkdownParagraph`...) work unchanged.
    It never parses on its own: `StreamingMarkdown` hands it blocks.
    """

    DEFAULT_CSS = """
    MarkdownBody {
        layout: stream;
    }
    """

    def __init__(self, owner: StreamingMarkdown) -> None:
        super().__init__()
        self._owner_ref = weakref.ref(owner)

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
        self._body_widget: MarkdownBody | None = MarkdownBody(self)  # None once flat
        self._frozen_sources: list[tuple[str, int]] = []  # (source, first line)
        self._frozen_lines = 0  # lines in frozen blocks: where the tail starts
        self._baked: BakedBlocks | None = None
        self._live_frozen: list[MarkdownBlock] = []  # frozen, not baked yet
        self._tail_widgets: list[MarkdownBlock] = []
        self._shown_tail = ""  # the tail text the tail widgets show
        self._render_lock = asyncio.Lock()
        self._scheduled = False
        self._finished = False
        self._rebuild_needed = False
        self._bakeable = True
        self._width = 0
        self._flat: _FlatAnswer | None = None
        self._all_taken = False  # every block has been taken from the closed splitter
        self.frozen_block_count = 0
        """How many finished blocks have been parsed and rendered (each once)."""
        if markdown:
            self.append(markdown)

    def compose(self) -> ComposeResult:
        yield self._body

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
        # makes the baked lines wrong.
        width, self._width = self._width, event.size.width
        baked = self._baked is not None or self._flat is not None
        if baked and width and event.size.width != width:
            self._invalidate_baked()

    @property
    def _body(self) -> MarkdownBody:
        """The container of the block widgets (a flat answer has none)."""
        assert self._body_widget is not None, "a flat answer has no body"
        return self._body_widget

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
        """The answer is finished and drawn as one widget's lines (no child widgets)."""
        return self._flat is not None

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
            await self._apply()

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
        self._invalidate_baked()

    def _invalidate_baked(self) -> None:
        """Baked lines are for one width and theme: render the blocks again."""
        self._rebuild_needed = True
        self._scheduled = False
        self._schedule()

    # -- rendering ----------------------------------------------------------------

    async def _apply(self) -> None:
        if self._flat is not None:
            if not self._rebuild_needed:
                return
            await self._unflatten()
        body = self._body
        if not body.is_mounted:
            return
        if self._all_shown() and await self._flatten():
            return
        with self.app.batch_update():
            if self._rebuild_needed:
                progress = await self._rebuild()
            else:
                progress = await self._bake_laid_out()
            progress = await self._show_new_text() or progress
        if progress and self._live_frozen and self._bakeable:
            # Bake the rest once it has been laid out. (Without progress, e.g.
            # while hidden, wait for the next append rather than spin.)
            self._schedule()
        elif progress and self._all_shown():
            # Flatten once the screen has laid out what was just mounted or baked.
            self.call_after_refresh(self._flatten_when_laid_out)

    async def _show_new_text(self) -> bool:
        """Mount newly finished blocks and re-render the tail; True if a block froze."""
        closed = self._splitter.closed
        finished = self._splitter.take_finished()
        self._all_taken = closed  # after close, the splitter gave every block
        tail = self._splitter.tail
        if not finished and tail == self._shown_tail:
            return False
        frozen: list[MarkdownBlock] = []
        for block_source in finished:
            frozen.extend(self._render_frozen(block_source, self._frozen_lines))
            self._frozen_sources.append((block_source, self._frozen_lines))
            self._frozen_lines += block_source.count("\n")
        new_tail = self._render_tail(tail, self._frozen_lines) if tail else []
        if finished:
            # The tail widgets showed (part of) the first finished block:
            # the frozen widgets take their place.
            await self._replace_tail(0, frozen + new_tail)
            self._live_frozen.extend(frozen)
            self._tail_widgets = new_tail
        else:
            await self._update_tail(new_tail)
        self._shown_tail = tail
        return bool(finished)

    def _render_frozen(self, source: str, first_line: int) -> list[MarkdownBlock]:
        """Parse a finished block, once: its widgets are never updated again."""
        self.frozen_block_count += 1
        return self._body.build_blocks(source, first_line)

    def _render_tail(self, source: str, first_line: int) -> list[MarkdownBlock]:
        """Parse the open tail block (again): the only per-update parsing."""
        return self._body.build_blocks(source, first_line)

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
        await self._replace_tail(kept, new_tail[kept:])
        self._tail_widgets = old_tail[:kept] + new_tail[kept:]

    async def _replace_tail(self, keep: int, widgets: list[MarkdownBlock]) -> None:
        """Remove the tail widgets after the first `keep`, then mount `widgets`."""
        stale = self._tail_widgets[keep:]
        if stale:
            await self._remove_blocks(stale)
        if widgets:
            await self._body.mount_all(widgets)

    async def _remove_blocks(self, widgets: Sequence[Widget]) -> None:
        """Remove block widgets from the body, and let them leave memory.

        Textual's child list caches its last list of displayed children until it is
        asked again, and nothing asks a finished answer's body again: without the
        fresh look below, every answer on screen would keep all the block widgets it
        ever showed (with their render caches, about 2 MB a ~2 KB answer)."""
        await self._body.remove_children(widgets)
        self._body.displayed_children  # noqa: B018  (refreshes the cached list)

    async def _bake_laid_out(self) -> bool:
        """Swap frozen block widgets that have been laid out for their lines."""
        live = self._live_frozen
        if not live:
            return False
        width = self._baked.baked_width if self._baked is not None else live[0].outer_size.width
        baked: list[MarkdownBlock] = []
        for block in live:
            if block.outer_size.width != width or width <= 0:
                break  # not laid out yet (or at another width): later
            lines = render_block_lines(block)
            if lines is None:
                self._bakeable = False  # keep live widgets rather than retry forever
                break
            if self._baked is None:
                self._baked = BakedBlocks(width)
                await self._body.mount(self._baked, before=0)
            self._baked.add(block, lines)
            baked.append(block)
        if baked:
            del live[: len(baked)]
            await self._remove_blocks(baked)
        return bool(baked)

    async def _rebuild(self) -> bool:
        """Render every frozen block again from its source (after a resize or theme change)."""
        self._rebuild_needed = False
        stale: list[Widget] = list(self._live_frozen)
        if self._baked is not None:
            stale.append(self._baked)
            self._baked = None
        if stale:
            await self._remove_blocks(stale)
        blocks: list[MarkdownBlock] = []
        for source, first_line in self._frozen_sources:
            blocks.extend(self._body.build_blocks(source, first_line))
        self._live_frozen = blocks
        if blocks:
            await self._body.mount_all(blocks, before=0)
        return True

    # -- a finished answer as one widget ----------------------------------------------

    def _all_shown(self) -> bool:
        """Is the whole answer in the body (finished, every block frozen and mounted)?"""
        return (
            self._finished
            and self._all_taken
            and not self._tail_widgets
            and not self._rebuild_needed
            and self._body_widget is not None
            and bool(self._body_widget.children)
        )

    async def _flatten_when_laid_out(self) -> None:
        async with self._render_lock:
            if self._flat is None and self._all_shown():
                await self._flatten()

    async def _flatten(self) -> bool:
        """Draw the body's lines here and let the body go (True), if the screen's layout
        of the body is the current one; otherwise False (the next bake tries again).

        The lines come from one render of the body (baked blocks and live ones) with
        Textual's compositor, as the screen draws them; only its content is kept,
        without the body's padding or the first block's top margin (kept as sizes),
        so selection and copy see the text alone, as in `BakedBlocks`."""
        body = self._body
        children = list(body.children)
        gutter = body.styles.gutter
        size = body.outer_size
        inner_width = size.width - gutter.width
        # Sizes, not regions: asking the screen for the region of a widget that is
        # off screen makes it lay out every widget there is. The height is the
        # blocks' (as Markdown stacks them), which Textual also gives the answer
        # once its blocks are baked: while they are live it can be a blank line more.
        stacked = _stacked_height(children, inner_width)
        if stacked is None or (self._baked is not None and len(children) > 1):
            # (The stream layout reads margins from CSS, not the baked blocks' own:
            # beside live blocks they are drawn without their gap until baked too.)
            return False
        height = gutter.height + stacked
        if (
            not body.is_mounted
            or inner_width <= 0
            or size.width != self.content_size.width
            or size.height < height
            or self._selected(body)
        ):
            return False
        try:
            strips = render_lines(body, size)
        except Exception:  # the compositor failed on it: keep the widgets (slower, still right)
            return False
        top = gutter.top + children[0].styles.margin.top
        lines = BakedLines(inner_width)
        lines.lines = [
            tuple(strip.crop(gutter.left, gutter.left + inner_width))
            for strip in strips[top : gutter.top + stacked]
        ]
        self._flat = _FlatAnswer(
            lines, height=height, top=top, left=gutter.left, inner_width=inner_width
        )
        self._baked = None
        self._live_frozen = []
        self._body_widget = None
        with self.app.batch_update():
            await body.remove()
            self.displayed_children  # noqa: B018  (refreshes the cached list: lets the body go)
            self.refresh(layout=True)
        return True

    def _selected(self, body: Widget) -> bool:
        """Is text in the body selected (its lines would keep the highlight)?"""
        return any(widget is body or body in widget.ancestors for widget in self.screen.selections)

    async def _unflatten(self) -> None:
        """Give the answer a body again, for its blocks to be rendered anew."""
        self._flat = None
        self._body_widget = MarkdownBody(self)
        await self.mount(self._body_widget)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        if self._flat is not None:
            return self._flat.height
        return super().get_content_height(container, viewport, width)

    def render_line(self, y: int) -> Strip:
        flat = self._flat
        if flat is None:
            return super().render_line(y)
        return flat.strip(self, y, self.content_size.width)

    def get_selection(self, selection: Selection) -> tuple[str, str] | None:
        """The plain text under a selection, for copying (once the answer is flat)."""
        if self._flat is None:
            return super().get_selection(selection)
        return selection.extract(self._flat.lines.text()), "\n"

    def selection_updated(self, selection: Selection | None) -> None:
        if self._flat is not None:
            self.refresh()

    def action_link(self, href: str) -> None:
        """A click on a link in a flat answer (the lines keep their click actions)."""
        self.app.open_url(href)


class _FlatAnswer:
    """A finished answer's baked lines, placed as its body placed them: `top` blank
    lines (the first block's margin) above, `left` cells (the body's padding) before.
    Selection and copy work on the baked lines' own coordinates, as in `BakedBlocks`."""

    __slots__ = ("height", "inner_width", "left", "lines", "top")

    def __init__(
        self, lines: BakedLines, *, height: int, top: int, left: int, inner_width: int
    ) -> None:
        self.lines = lines
        self.height = height
        self.top = top
        self.left = left
        self.inner_width = inner_width

    def strip(self, owner: Widget, y: int, width: int) -> Strip:
        blank_style = Style(bgcolor=owner.rich_style.bgcolor)
        inner_y = y - self.top
        if not 0 <= inner_y < len(self.lines.lines):
            return Strip.blank(width, blank_style)
        inner = self.lines.strip(owner, inner_y, self.inner_width)
        right = width - self.left - self.inner_width
        parts = [inner]
        if self.left > 0:
            parts.insert(0, Strip.blank(self.left, blank_style))
        if right > 0:
            parts.append(Strip.blank(right, blank_style))
        return Strip.join(parts) if len(parts) > 1 else inner


def _stacked_height(children: Sequence[Widget], width: int) -> int | None:
    """The height of `children` stacked as the body's stream layout stacks them (the
    larger of two neighbours' margins between them, the last bottom margin left out),
    or None if one has not been laid out at `width` less its side margins."""
    height = 0
    previous: int | None = None
    for child in children:
        top, right, bottom, left = child.styles.margin
        size = child.outer_size
        if size.width <= 0 or size.width != width - left - right:
            return None
        height += top if previous is None else max(previous, top)
        height += size.height
        previous = bottom
    return height


def _same_content(old: MarkdownBlock, new: MarkdownBlock) -> bool:
    """Do two parses of a tail block show the same thing (so no update is needed)?"""
    if isinstance(old, MarkdownFence) and isinstance(new, MarkdownFence):
        return old.code == new.code and old.lexer == new.lexer
    return old.content == new.content  # a paragraph shows its inline Content
