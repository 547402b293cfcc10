"""Rendered markdown kept as lines: how an answer draws, selects and copies them.

Every widget in a screen is visited on each layout and each frame composes every
widget that covers a line, so an answer made of hundreds of block widgets (each a
small tree: list items, bullets, table cells...) makes every frame slower. Once a
block has been rendered, its lines never change (until the width or
the theme does), so `StreamingMarkdown` keeps just those lines, as `BakedLines`,
and draws them itself: the cost of a frame no longer grows with the answer.
"""

from __future__ import annotations

from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip
from textual.widget import Widget


class BakedLines:
    """Rendered lines kept as bare tuples of segments, and how to show and copy them.

    Each line is a tuple of segments (None: a blank gap line): a Strip per line
    would carry its caches, many long-lived objects that every full garbage
    collection has to walk.
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
