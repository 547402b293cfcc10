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
  reuses the placements of the unchanged blocks in front of the tail.

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
from textual import events
from textual.app import ComposeResult
from textual.widget import Widget
from textual.widgets import Markdown
from textual.widgets.markdown import MarkdownBlock, MarkdownFence

from agentcli.core.terminal_text import MarkdownCleaner
from agentcli.frontends.tui.textual_private import blocks_from_tokens, update_block
from agentcli.frontends.tui.widgets.markdown_baked import BakedBlocks, render_block_lines
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
        self._body = MarkdownBody(self)
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
        if self._baked is not None and width and event.size.width != width:
            self._invalidate_baked()

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
        body = self._body
        if not body.is_mounted:
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

    async def _show_new_text(self) -> bool:
        """Mount newly finished blocks and re-render the tail; True if a block froze."""
        finished = self._splitter.take_finished()
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


def _same_content(old: MarkdownBlock, new: MarkdownBlock) -> bool:
    """Do two parses of a tail block show the same thing (so no update is needed)?"""
    if isinstance(old, MarkdownFence) and isinstance(new, MarkdownFence):
        return old.code == new.code and old.lexer == new.lexer
    return old.content == new.content  # a paragraph shows its inline Content
