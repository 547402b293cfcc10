"""Finished markdown blocks, kept as the lines Textual rendered for them.

Every widget in a screen is visited on each layout, so a long answer made of
hundreds of block widgets (each a small tree: list items, bullets, table
cells...) makes every frame slower. Once a finished block has been laid out
and rendered by Textual, its lines never change (until the width or the theme
does), so `BakedBlocks` keeps just those lines, for any number of blocks, in
one widget: the cost of a frame no longer grows with the answer.

The lines come from Textual's own compositor (a private API, used through
`agentcli.frontends.tui.textual_private`), run on the block alone, so the baked blocks look
exactly as the live ones did, links included.
"""

from __future__ import annotations

from rich.segment import Segment
from rich.style import Style
from textual.geometry import Size
from textual.selection import Selection
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets.markdown import MarkdownBlock

from agentcli.frontends.tui.textual_private import render_lines


def render_block_lines(block: MarkdownBlock) -> list[Strip] | None:
    """The lines a laid-out block shows, or None if it cannot be rendered alone.

    Renders the block on its own, at the size the screen gave it, with
    Textual's compositor (see textual_private.py).
    """
    size = block.outer_size
    if not block.is_mounted or size.width <= 0:
        return None
    if size.height == 0:
        return []
    try:
        return render_lines(block, Size(size.width, size.height))
    except Exception:  # the compositor failed on it: keep the live widgets (slower, still right)
        return None


class BakedLines:
    """Rendered lines kept as bare tuples of segments, and how to show and copy them.

    Shared by `BakedBlocks` (finished blocks beside live ones) and a finished
    `StreamingMarkdown` (the whole answer as one widget's lines), so both draw,
    select and copy the same way. Each line is a tuple of segments (None: a blank
    gap line): a Strip per line would carry its caches, many long-lived objects
    that every full garbage collection has to walk.
    """

    __slots__ = ("lines", "width")

    def __init__(self, width: int) -> None:
        self.width = width
        self.lines: list[tuple[Segment, ...] | None] = []

    def strip(self, owner: Widget, y: int, width: int) -> Strip:
        """Line `y` at `width` cells, with `owner`'s selection shown and the
        offsets that tell the screen which character is under the mouse."""
        line = self.lines[y] if 0 <= y < len(self.lines) else None
        if line is None:
            strip = Strip.blank(width, Style(bgcolor=owner.rich_style.bgcolor))
        else:
            strip = Strip(line, self.width)
            if width != self.width:
                strip = strip.crop_extend(0, width, None)
            strip = _highlight_selection(owner, strip, y)
        return strip.apply_offsets(0, y)

    def text(self) -> str:
        """The plain text of the lines, one per line, as a copy gives it."""
        return "\n".join(
            "".join(segment.text for segment in line).rstrip() if line else ""
            for line in self.lines
        )


def _highlight_selection(owner: Widget, strip: Strip, y: int) -> Strip:
    selection = owner.text_selection
    span = selection.get_span(y) if selection is not None else None
    if span is None:
        return strip
    start, end = span
    end = strip.cell_length if end == -1 else min(end, strip.cell_length)
    if start >= end:
        return strip
    before, chosen, after = strip.divide([start, end, strip.cell_length])[:3]
    style = owner.screen.get_component_rich_style("screen--selection")
    return Strip.join([before, chosen.apply_style(style), after])


class BakedBlocks(Widget):
    """The rendered lines of many finished blocks, with the gaps between them.

    Its top margin is the first block's and its bottom margin the last block's,
    so it sits among live blocks with the same (collapsed) spacing they had.
    """

    DEFAULT_CSS = """
    BakedBlocks {
        width: 1fr;
        height: auto;
    }
    """

    def __init__(self, width: int) -> None:
        super().__init__()
        self.baked = BakedLines(width)
        self._bottom_margin: int | None = None

    @property
    def baked_width(self) -> int:
        return self.baked.width

    @property
    def line_count(self) -> int:
        return len(self.baked.lines)

    def add(self, block: MarkdownBlock, lines: list[Strip]) -> None:
        """Append a block's lines after the previous block's (with the collapsed gap)."""
        top, _, bottom, _ = block.styles.margin
        kept = self.baked.lines
        if self._bottom_margin is None:
            self.styles.margin = (top, 0, bottom, 0)
        else:
            kept.extend([None] * max(self._bottom_margin, top))
            self.styles.margin = (self.styles.margin.top, 0, bottom, 0)
        self._bottom_margin = bottom
        kept.extend(tuple(line) for line in lines)
        self.refresh(layout=True)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self.baked.lines)

    def render_line(self, y: int) -> Strip:
        return self.baked.strip(self, y, self.size.width)

    def get_selection(self, selection: Selection) -> tuple[str, str] | None:
        """The plain text under a selection, for copying (Ctrl+C / the clipboard)."""
        return selection.extract(self.baked.text()), "\n"

    def selection_updated(self, selection: Selection | None) -> None:
        self.refresh()

    def action_link(self, href: str) -> None:
        """A click on a link in a baked block (the lines keep their click actions)."""
        self.app.open_url(href)
