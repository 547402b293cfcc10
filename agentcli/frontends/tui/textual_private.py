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

- `Widget._layout_updates` (`count_every_layout_request`): a widget whose height
  changes while a layout it asked for is still pending keeps its old height:
  `refresh(layout=True)` counts a layout update only when none is pending, and
  the box model is cached on that count, so the screen's next layout reuses the
  height it cached meanwhile (a layout of another widget came in between). A
  finished answer lost its last lines that way until the next resize, and a
  finished Read pane its summary line; any widget whose content changes twice
  in a frame can. The replacement `Widget.refresh` counts every layout request.
  Check: drop this when `Widget.refresh(layout=True)` always invalidates
  `_box_model_cache`.
- `Screen._layout_widgets` (`lay_out_nested_changes_in_streams`): the widgets
  each container re-measures at the next layout. `layout: stream` (the
  conversation) reuses the placements of its children above the first one in
  that set. But when a widget deep in a child changes size (a diff mounted in a
  tool pane), the screen adds the child to the stream's set only if the child
  has no set of its own yet, and it has one by then (its own changed widget is
  in it). So the pane kept its old height whenever a later item (the answer
  after it) was in the set in the same frame: the finished edit was drawn
  without its diff until the next resize (`test_finished_turn_with_a_diff`
  failed about one run in ten under load). The replacement `StreamLayout.arrange`
  first adds every child that has a set of its own. Check: `Screen._on_layout`
  still tests `widget not in self._layout_widgets` (the keys, not the
  ancestor's set); drop this when it tests the ancestor's set.
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

Public on purpose, though it looks close: `PromptInput` replaces TextArea's own
key and paste handling with public `on_key` / `on_paste` handlers that call
`event.prevent_default()` (which skips the base classes' handlers); tests type
with `Pilot.press(*text)`.
"""

from __future__ import annotations

from functools import lru_cache
from typing import IO, TYPE_CHECKING, Any

from textual._styles_cache import StylesCache
from textual.layouts.stream import StreamLayout
from textual.widget import Widget

if TYPE_CHECKING:
    from textual.color import Color
    from textual.drivers.linux_driver import LinuxDriver  # imports termios: Unix only
    from textual.geometry import Region, Size
    from textual.layout import ArrangeResult
    from textual.screen import Screen
    from textual.strip import Strip
    from textual.style import Style


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


_textual_refresh = Widget.refresh


def _refresh(
    self: Widget,
    *regions: Region,
    repaint: bool = True,
    layout: bool = False,
    recompose: bool = False,
) -> Widget:
    """Textual's own `Widget.refresh`, which also counts a layout requested while one
    is pending (the count is what the widget's cached box model is keyed on)."""
    if layout and self._layout_required:
        self._layout_updates += 1
    return _textual_refresh(self, *regions, repaint=repaint, layout=layout, recompose=recompose)


def count_every_layout_request() -> None:
    """Make `refresh(layout=True)` lay a widget out at its new size even when a layout
    it asked for earlier is still pending (see the module's docstring; idempotent)."""
    Widget.refresh = _refresh  # type: ignore[method-assign,assignment]


def screen_lines(screen: Screen[Any]) -> list[Strip]:
    """The lines of the frame `screen` last composed: what a person sees (for tests)."""
    return screen._compositor.render_strips()


_textual_stream_arrange = StreamLayout.arrange


def _stream_arrange(
    self: StreamLayout, parent: Widget, children: list[Widget], size: Size, greedy: bool = True
) -> ArrangeResult:
    """Textual's own `StreamLayout.arrange`, which first marks for re-measuring each
    child with a layout pending inside it (see the module's docstring)."""
    pending = parent.screen._layout_widgets
    changed = [w for w in pending if isinstance(w, Widget) and w.parent is parent]
    if changed:
        pending.setdefault(parent, set()).update(changed)
    return _textual_stream_arrange(self, parent, children, size, greedy)


def lay_out_nested_changes_in_streams() -> None:
    """Make a `layout: stream` container re-measure a child whose content changed
    deep inside it, whatever else changed in the same frame (idempotent)."""
    StreamLayout.arrange = _stream_arrange  # type: ignore[method-assign]
