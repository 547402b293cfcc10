"""Every use of Textual's private API, in one place.

A few Textual internals buy speed or robustness that its public API cannot, so
agentcli uses them, but only through the small functions below. Textual is
pinned to one exact version in pyproject.toml; `tests/frontends/tui/test_textual_private.py`
exercises each function against the installed Textual, and
`tests/frontends/tui/test_textual_private_boundary.py` fails if any other module touches a
Textual private name. An upgrade that renames or changes one of these fails
there, in one obvious place, instead of somewhere in the UI.

The private APIs, why each is worth it, and what to check on an upgrade.
(Measured on 2 shared, loaded cores; each pair of numbers in one session.)

- `Markdown._parse_markdown(tokens)` (`blocks_from_tokens`): turns markdown-it
  tokens into Textual's own block widgets without mounting them.
  `StreamingMarkdown` needs it to parse each finished block once and only the
  open tail again; Textual's public `Markdown.append` / `get_stream()` re-parse
  and lay out the whole document on every chunk. `bench/ui_bench_stream.py`
  (200 KB in 20-character chunks): StreamingMarkdown 280 chunks/s with a flat
  cost per chunk (last 10% / first 10%: 1.06x), `get_stream()` 46 chunks/s,
  growing 4.6x over the message. Check: it takes an iterable of tokens and
  yields unmounted top-level blocks with `source_range` set.
- `MarkdownBlock._update_from_block(new)` (`update_block`): gives a mounted
  paragraph or code fence the content of a newer parse of the same block, in
  place. The growing tail of an answer is updated this way instead of being
  removed and mounted again: a long paragraph then a code fence, streamed with
  a frame after each chunk, cost 5 ms per chunk this way, 45-50 ms remounting.
  Check: paragraphs and fences still update in place (same widget, new text).
- `textual._compositor.Compositor` and `Screen._compositor` (`render_detached`): lays
  out and renders a widget subtree the screen never lays out. A streaming answer keeps
  its block widgets in a hidden container and draws their lines itself, so a frame
  lays out and paints one widget per answer, not one per markdown block
  (streaming_markdown.py). Check: `Compositor()`, `reflow(root, size)`,
  `render_strips()`, `layers`, and widgets finding their region through
  `Screen._compositor.find_widget`.
- `LinuxDriver._file` (`driver_output`, `set_driver_output`): the stream the
  driver's writer thread writes to, replaced by one that survives the terminal
  going away (see terminal_driver.py); Textual has no public way to give the
  driver a stream. Check: `LinuxDriver.__init__` sets it and
  `start_application_mode` hands it to its `WriterThread`, which stops for
  good on the first failed write.
- `StylesCache.get_inner_outer` (`free_removed_widgets_render_caches`): Textual
  caches it with an `lru_cache` on the method, so the cache's keys hold the
  StylesCache (every line it rendered) of the last 1024 widgets drawn, long after
  they were removed. A live session of streamed answers keeps about 20 MB and
  150,000 objects that way, and every full garbage collection walks them: in
  `bench/live_session_bench.py` (25 answers) RSS 70 -> 89 MB with it, 70 -> 74
  MB without, CPU per answer -17%. The replacement caches on the two colours only
  (the method never reads `self`). Check: the method still takes
  `(base_background, background)` and ignores `self`; drop this when Textual
  no longer caches on the instance.
- `Screen._compositor` (`screen_lines`, for tests): the lines of the frame on
  screen, so tests can compare what a person sees as text.

Public on purpose, though it looks close: `PromptInput` and `MarkdownBody`
replace TextArea's and Markdown's own key, paste and mount handling with public
`on_key` / `on_paste` / `on_mount` handlers that call `event.prevent_default()`
(which skips the base classes' handlers); a paragraph's text is compared via
the public `Static.content`; tests type with `Pilot.press(*text)`.
"""

from __future__ import annotations

from functools import lru_cache
from typing import IO, TYPE_CHECKING, Any

from textual._compositor import Compositor
from textual._styles_cache import StylesCache

if TYPE_CHECKING:
    from collections.abc import Iterable

    from markdown_it.token import Token
    from textual.color import Color
    from textual.drivers.linux_driver import LinuxDriver  # imports termios: Unix only
    from textual.geometry import Size
    from textual.screen import Screen
    from textual.strip import Strip
    from textual.style import Style
    from textual.widget import Widget
    from textual.widgets import Markdown
    from textual.widgets.markdown import MarkdownBlock


def blocks_from_tokens(document: Markdown, tokens: Iterable[Token]) -> list[MarkdownBlock]:
    """Textual's block widgets for parsed markdown, belonging to `document`, unmounted.

    Args:
        document: The `Markdown` the blocks will be mounted in.
        tokens: markdown-it tokens, as `MarkdownIt("gfm-like").parse()` returns them.

    Returns:
        The top-level blocks, each with its `source_range` in the parsed text.
    """
    return list(document._parse_markdown(tokens))


async def update_block(old: MarkdownBlock, new: MarkdownBlock) -> None:
    """Show `new`'s content in the mounted block `old` (same kind), without a remount.

    Args:
        old: A mounted paragraph or code fence.
        new: A fresh, unmounted parse of the same block.
    """
    await old._update_from_block(new)


_textual_inner_outer = getattr(StylesCache.get_inner_outer, "__wrapped__", None)


@lru_cache(1024)
def _inner_outer(base_background: Color, background: Color) -> tuple[Style, Style]:
    """Textual's own `get_inner_outer`, cached on the colours alone."""
    assert _textual_inner_outer is not None
    return _textual_inner_outer(None, base_background, background)  # type: ignore[no-any-return]


def _get_inner_outer(
    _cache: StylesCache, base_background: Color, background: Color
) -> tuple[Style, Style]:
    return _inner_outer(base_background, background)


def free_removed_widgets_render_caches() -> None:
    """Let a removed widget's render cache leave memory with it (idempotent).

    Replaces `StylesCache.get_inner_outer`, whose `lru_cache` keeps the caches of
    the last 1024 widgets drawn alive, with the same computation cached on the
    colours only. A Textual whose method is no longer an `lru_cache` is left as is.
    """
    if _textual_inner_outer is not None:
        StylesCache.get_inner_outer = _get_inner_outer  # type: ignore[method-assign,assignment]


def driver_output(driver: LinuxDriver) -> IO[str] | None:
    """The stream `driver` writes the screen to (its writer thread's file)."""
    return driver._file


def set_driver_output(driver: LinuxDriver, stream: IO[str]) -> None:
    """Make `driver` write the screen to `stream`; call before the app starts."""
    driver._file = stream  # type: ignore[assignment]  # Textual types it TextIOWrapper


def screen_lines(screen: Screen[Any]) -> list[Strip]:
    """The lines of the frame `screen` last composed: what a person sees (for tests)."""
    return screen._compositor.render_strips()


def render_detached(root: Widget, size: Size) -> list[Strip]:
    """The lines `root` and its children show at `size`, laid out here, not by the screen.

    `StreamingMarkdown` mounts its block widgets in a container that is not displayed
    (so the screen never lays them out or paints them) and draws their lines itself.
    Textual's widgets read their size (`_size`, set by the screen's layout through
    `Widget._size_updated`) and their region (`screen.find_widget`, the screen's
    `_compositor`) to render: both are given from this compositor's own layout, the
    second by standing in for the screen's compositor during this synchronous render
    (no other code runs meanwhile). Check on an upgrade: `Compositor.layers` yields
    `(widget, MapGeometry)` with `region`, `virtual_size`, `container_size`;
    `Widget._size_updated(size, virtual_size, container_size, layout=False)`; widgets
    find their region through `Screen._compositor.find_widget`.

    Args:
        root: A mounted widget (in a container with `display: none` or anywhere else).
        size: The size to lay it out and render it at (its margins left out).

    Returns:
        One strip per line, `size.height` of them.
    """
    compositor = Compositor()
    compositor.reflow(root, size)
    for widget, geometry in compositor.layers:
        widget._size_updated(
            geometry.region.size, geometry.virtual_size, geometry.container_size, layout=False
        )
    screen = root.screen
    shown = screen._compositor
    screen._compositor = compositor
    try:
        return compositor.render_strips()
    finally:
        screen._compositor = shown
