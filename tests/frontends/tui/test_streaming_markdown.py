"""StreamingMarkdown shows what its renderer shows for the whole text, at a flat cost per chunk.

Renders are compared as the screen a user sees: the same document rendered at
once by `MarkdownRenderer` (no splitting into blocks, no streaming: `_Whole`)
and in `StreamingMarkdown` (streamed in chunks, block by block).
"""

from __future__ import annotations

import pytest
from rich.style import Style
from textual.app import App, ComposeResult
from textual.color import Color
from textual.strip import Strip
from textual.widget import Widget

from agentcli.frontends.tui.textual_private import screen_lines
from agentcli.frontends.tui.widgets.markdown_render import MarkdownLook, MarkdownRenderer
from agentcli.frontends.tui.widgets.streaming_markdown import StreamingMarkdown

SIZE = (70, 120)

DOC_MIXED = """# Release notes

Intro paragraph with `inline code`, **bold** and a [link](https://example.com).
It wraps over a second line.

## Changes

- first item
- second item
  - nested item
  - another nested
- third item

1. step one
2. step two

| Name | Value | Note |
|------|-------|------|
| a    | 1     | ok   |
| b    | 2     | fine |

```python
def greet(name: str) -> str:
    return f"hello {name}"
```

> A quote that spans
> two lines.

Closing words.
"""

DOC_LOOSE = """Intro:

- item one

- item two

  continued in item two

```bash
echo one

echo two
```
### Tail heading
Text right after the heading.
"""

DOCS = [DOC_MIXED, DOC_LOOSE]


class _Host(App[None]):
    def __init__(self, widget: Widget) -> None:
        super().__init__()
        self.widget = widget

    def compose(self) -> ComposeResult:
        yield self.widget


class _Whole(Widget):
    """The reference: the whole document rendered at once, two columns of padding aside."""

    DEFAULT_CSS = "_Whole { height: auto; padding: 0 2; }"

    def __init__(self, source: str) -> None:
        super().__init__()
        self.source = source

    def _lines(self, width: int) -> list:
        rich_style = self.rich_style
        base = Style(color=rich_style.color, bgcolor=rich_style.bgcolor)
        look = MarkdownLook.from_theme(self.app.theme_variables, self.app.current_theme.dark, base)
        return MarkdownRenderer(look).lines(self.source, width)

    def get_content_height(self, container, viewport, width: int) -> int:
        return len(self._lines(width))

    def render_line(self, y: int) -> Strip:
        lines = self._lines(self.content_size.width)
        if y < len(lines):
            return Strip(lines[y])
        return Strip.blank(self.content_size.width, Style(bgcolor=self.rich_style.bgcolor))


def _screen_text(app: App) -> list[str]:
    # The composited screen, as text: what a user sees. (Call after
    # `pilot.pause()`, which applies pending layout as the refresh timer does.)
    return [strip.text.rstrip() for strip in screen_lines(app.screen)]


def _screen_cells(app: App) -> list[list[tuple[str, str]]]:
    """Every cell of the screen with its style (colours, bold, links...): what a
    user sees, exactly. (Meta, e.g. selection offsets, is not drawn: left out.)"""
    return [
        [(char, _cell_style(char, segment.style)) for segment in strip for char in segment.text]
        for strip in screen_lines(app.screen)
    ]


def _cell_style(char: str, style: Style | None) -> str:
    """A cell's style as it shows: a blank cell shows its background (and a line
    through or under it), never its text colour."""
    if style is not None and char == " " and not (style.underline or style.strike or style.reverse):
        style = Style(bgcolor=style.bgcolor)
    return str(style or "")


async def _stock_render(source: str, size: tuple[int, int] = SIZE) -> list[str]:
    app = _Host(_Whole(source))
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        return _screen_text(app)


async def _stock_cells(
    source: str, size: tuple[int, int] = SIZE, theme: str | None = None
) -> list[list[tuple[str, str]]]:
    app = _Host(_Whole(source))
    async with app.run_test(size=size) as pilot:
        if theme:
            app.theme = theme
        await pilot.pause()
        await pilot.pause()
        return _screen_cells(app)


async def _settle(pilot) -> None:
    """Let the frames happen in which the answer's lines are drawn and its widgets let go."""
    for _ in range(4):
        await pilot.pause()


async def _stream(pilot, widget: StreamingMarkdown, source: str, chunk: int) -> None:
    for index, start in enumerate(range(0, len(source), chunk)):
        widget.append(source[start : start + chunk])
        if index % 7 == 0:
            await widget.flush()
        if index % 23 == 0:
            await pilot.pause()  # let frames happen between chunks


@pytest.mark.parametrize("doc", DOCS, ids=["mixed", "loose"])
@pytest.mark.parametrize("chunk", [1, 3, 20, 10_000])
async def test_streamed_render_matches_the_whole_text_rendered_at_once(
    doc: str, chunk: int
) -> None:
    expected = await _stock_render(doc)
    widget = StreamingMarkdown()
    app = _Host(widget)
    async with app.run_test(size=SIZE) as pilot:
        await _stream(pilot, widget, doc, chunk)
        await widget.finish()
        await _settle(pilot)
        assert _screen_text(app) == expected
        assert widget.source == doc
        # A few refreshes later, still the same.
        await pilot.pause()
        await pilot.pause()
        assert _screen_text(app) == expected


async def test_an_answer_is_one_widget_while_it_streams_and_after() -> None:
    """Issue 25: the screen lays out and paints the answer alone: its blocks are
    rendered straight to lines, never to widgets (a tree of ~150 nodes for a ~2 KB
    answer, once, that every layout visited)."""
    widget = StreamingMarkdown()
    app = _Host(widget)
    async with app.run_test(size=SIZE) as pilot:
        await _stream(pilot, widget, DOC_MIXED, 5)  # not finished: the last block is open
        await _settle(pilot)
        assert list(widget.walk_children()) == []
        assert not widget.flattened
        assert "  Closing words." in _screen_text(app)
        await widget.finish()
        await _settle(pilot)
        assert widget.flattened and list(widget.walk_children()) == []


async def test_the_gaps_between_blocks_are_there_in_every_frame_of_a_stream() -> None:
    """While finished blocks and the open tail are shown side by side, each frame
    has the gaps Markdown has between them (an earlier version drew finished
    blocks without their gap for a frame or two, until the next ones finished)."""
    boundaries = [i for i in range(2, len(DOC_MIXED)) if DOC_MIXED[i - 2 : i] == "\n\n"]
    widget = StreamingMarkdown()
    app = _Host(widget)
    async with app.run_test(size=SIZE) as pilot:
        shown = 0
        for boundary in boundaries:
            prefix = DOC_MIXED[: boundary + 3]  # a few characters of the next block
            widget.append(prefix[shown:])
            shown = len(prefix)
            await widget.flush()
            await pilot.pause()
            assert _screen_cells(app) == await _stock_cells(prefix), prefix


@pytest.mark.parametrize("doc", DOCS, ids=["mixed", "loose"])
async def test_a_finished_answer_is_one_widget_that_looks_the_same(doc: str) -> None:
    """Issue 25: every frame composes each widget covering a line, so a finished
    answer is drawn by one widget (no body, no block widgets), cell for cell and
    style for style what the renderer shows for the whole text at once."""
    expected = await _stock_cells(doc)
    widget = StreamingMarkdown()
    app = _Host(widget)
    async with app.run_test(size=SIZE) as pilot:
        await _stream(pilot, widget, doc, 20)
        await widget.finish()
        await _settle(pilot)
        assert widget.flattened
        assert list(widget.walk_children()) == []
        assert _screen_cells(app) == expected
        assert widget.source == doc


async def test_a_flat_answer_follows_a_theme_change() -> None:
    widget = StreamingMarkdown()
    app = _Host(widget)
    async with app.run_test(size=SIZE) as pilot:
        widget.append(DOC_MIXED)
        await widget.finish()
        await _settle(pilot)
        assert widget.flattened
        app.theme = "textual-light"
        await _settle(pilot)
        assert widget.flattened
        assert _screen_cells(app) == await _stock_cells(DOC_MIXED, theme="textual-light")


async def test_a_link_in_a_flat_answer_opens_on_click() -> None:
    opened: list[str] = []
    widget = StreamingMarkdown()
    app = _Host(widget)
    app.open_url = lambda url, **_: opened.append(url)  # type: ignore[method-assign]
    async with app.run_test(size=SIZE) as pilot:
        widget.append("See [the docs](https://example.com/docs) first.\n")
        await widget.finish()
        await _settle(pilot)
        assert widget.flattened
        (row,) = [y for y, line in enumerate(_screen_text(app)) if "the docs" in line]
        column = _screen_text(app)[row].index("the docs")
        await pilot.click(offset=(column + 2, row))
        await pilot.pause()
        assert opened == ["https://example.com/docs"]


async def test_finished_blocks_are_rendered_once() -> None:
    widget = StreamingMarkdown()
    frozen: list[str] = []
    draw_frozen = widget._draw_frozen

    async def recording(sources, drawing):
        frozen.extend(sources)
        await draw_frozen(sources, drawing)

    widget._draw_frozen = recording  # type: ignore[method-assign]
    app = _Host(widget)
    async with app.run_test(size=SIZE) as pilot:
        await _stream(pilot, widget, DOC_MIXED, 2)
        frozen_before_finish = len(frozen)
        await widget.finish()
        await pilot.pause()
    # Each block once, in order (none again: the width never changed), and the
    # blocks frozen while streaming are a prefix of the document.
    assert 0 < frozen_before_finish < len(frozen)
    assert "".join(frozen) == DOC_MIXED
    assert widget.frozen_block_count == len(frozen)


async def test_frozen_widgets_are_not_touched_by_later_chunks() -> None:
    widget = StreamingMarkdown()
    app = _Host(widget)
    async with app.run_test(size=SIZE) as pilot:
        widget.append("# Title\n\nFirst paragraph.\n\nSecond paragraph\n")
        await widget.flush()
        assert widget.frozen_block_count == 2
        drawing = widget._drawing
        assert drawing is not None
        frozen = drawing.lines.lines[: drawing._frozen_end]
        for word in ["is", "streamed", "in,", "word", "by", "word,", "for", "a", "while."]:
            widget.append(word + " ")
            await widget.flush()
            await pilot.pause()
        # No new block finished: nothing frozen was parsed or rendered again.
        assert widget.frozen_block_count == 2
        assert widget._drawing is drawing
        kept = drawing.lines.lines[: drawing._frozen_end]
        assert len(kept) == len(frozen) and all(a is b for a, b in zip(kept, frozen, strict=True))
        assert "Second paragraph is streamed in, word by word, for a while." in "\n".join(
            _screen_text(app)
        )


async def test_unclosed_fence_at_the_end_renders_as_code() -> None:
    doc = "Here is the code:\n\n```python\ndef f():\n    return 1\n"
    expected = await _stock_render(doc)
    widget = StreamingMarkdown()
    app = _Host(widget)
    async with app.run_test(size=SIZE) as pilot:
        await _stream(pilot, widget, doc, 4)
        await widget.finish()
        await pilot.pause()
        assert _screen_text(app) == expected


async def test_table_streamed_row_by_row() -> None:
    rows = ["| a | b |\n", "|---|---|\n", "| 1 | 2 |\n", "| 3 | 4 |\n", "| 5 | 6 |\n"]
    widget = StreamingMarkdown()
    app = _Host(widget)
    async with app.run_test(size=SIZE) as pilot:
        for count, row in enumerate(rows, 1):
            widget.append(row)
            await widget.flush()
            await pilot.pause()
            assert _screen_text(app) == await _stock_render("".join(rows[:count]))
        await widget.finish()


async def test_crlf_input_renders_like_lf() -> None:
    doc = DOC_MIXED.replace("\n", "\r\n")
    expected = await _stock_render(DOC_MIXED)
    widget = StreamingMarkdown()
    app = _Host(widget)
    async with app.run_test(size=SIZE) as pilot:
        await _stream(pilot, widget, doc, 2)  # splits many "\r\n" pairs
        await widget.finish()
        await pilot.pause()
        assert _screen_text(app) == expected
        assert widget.source == doc


async def test_resize_renders_the_blocks_again_at_the_new_width() -> None:
    widget = StreamingMarkdown()
    app = _Host(widget)
    async with app.run_test(size=SIZE) as pilot:
        await _stream(pilot, widget, DOC_MIXED, 50)
        await widget.finish()
        await _settle(pilot)
        assert widget.flattened
        await pilot.resize_terminal(50, 140)
        await _settle(pilot)
        assert _screen_text(app) == await _stock_render(DOC_MIXED, (50, 140))
        assert widget.flattened
        assert _screen_cells(app) == await _stock_cells(DOC_MIXED, (50, 140))


async def test_an_answer_keeps_its_lines_while_it_renders_again(monkeypatch) -> None:
    """Rendered again at a new width, an answer shows its old lines until the new ones
    are all there: a layout in between never sees it shrink to nothing (which would
    take a conversation's scrollbar away, and change every item's width again)."""
    widget = StreamingMarkdown()
    app = _Host(widget)
    async with app.run_test(size=SIZE) as pilot:
        widget.append(DOC_MIXED)
        await widget.finish()
        await _settle(pilot)
        tall = widget.get_content_height(app.size, app.size, app.size.width)
        heights: list[int] = []
        render = MarkdownRenderer.lines

        def seen(renderer, source, width):
            heights.append(widget.get_content_height(app.size, app.size, width))
            return render(renderer, source, width)

        monkeypatch.setattr(MarkdownRenderer, "lines", seen)
        await pilot.resize_terminal(SIZE[0] - 20, SIZE[1])
        await _settle(pilot)
        assert heights and set(heights) == {tall}  # each block rendered: the old lines shown
        assert _screen_text(app) == await _stock_render(DOC_MIXED, (SIZE[0] - 20, SIZE[1]))


async def test_the_loop_gets_a_turn_between_the_blocks_of_a_long_answer(monkeypatch) -> None:
    """Drawing an answer's blocks is not one long step of the loop: something queued
    while the first block renders (a key typed) runs before the last one renders."""
    import asyncio

    happened: list[str] = []
    render = MarkdownRenderer.lines

    def seen(renderer, source, width):
        if not happened:
            asyncio.get_running_loop().call_soon(happened.append, "queued meanwhile")
        happened.append("block")
        return render(renderer, source, width)

    monkeypatch.setattr(MarkdownRenderer, "lines", seen)
    widget = StreamingMarkdown()
    widget.complete(DOC_MIXED)
    app = _Host(widget)
    async with app.run_test(size=SIZE) as pilot:
        await _settle(pilot)
        assert widget.flattened
        assert happened.count("block") > 3
        assert happened.index("queued meanwhile") < len(happened) - 1
        assert _screen_text(app) == await _stock_render(DOC_MIXED)


async def test_append_after_finish_is_refused() -> None:
    widget = StreamingMarkdown()
    app = _Host(widget)
    async with app.run_test(size=SIZE):
        widget.append("done")
        await widget.finish()
        with pytest.raises(RuntimeError):
            widget.append("more")


async def test_removed_answers_are_freed():
    """Long sessions prune old answers; they must really leave memory.

    (Textual may cache the last removed child list, so allow a couple.)
    """
    import gc
    import weakref

    from textual.app import App

    app = App()
    refs = []
    async with app.run_test() as pilot:
        for n in range(20):
            answer = StreamingMarkdown(f"Answer number {n}, with *emphasis*.")
            await app.mount(answer)
            await answer.finish()
            refs.append(weakref.ref(answer))
            await answer.remove()
            del answer
        await pilot.pause()
        gc.collect()
        alive = sum(ref() is not None for ref in refs)
        assert alive <= 2


async def test_text_of_an_answer_can_be_selected_and_copied() -> None:
    """A person drags over an old part of an answer and copies it."""
    widget = StreamingMarkdown()
    app = _Host(widget)
    async with app.run_test(size=SIZE) as pilot:
        await _stream(
            pilot, widget, "First paragraph here.\n\nSecond paragraph follows.\n\nEnd.", 5
        )
        await widget.finish()
        await _settle(pilot)
        assert widget.flattened  # the finished answer's lines, in one widget

        widget.text_select_all()
        await pilot.pause()
        selected = app.screen.get_selected_text()
        assert "First paragraph here." in selected and "Second paragraph follows." in selected
        assert "\n  " not in selected and not selected.startswith(" ")  # no padding copied

        # A drag with the mouse selects just what it covers.
        app.screen.clear_selection()
        text = _screen_text(app)
        row = next(y for y, line in enumerate(text) if "First" in line)
        column = text[row].index("First")
        await pilot.mouse_down(widget, offset=(column, row))
        await pilot.hover(widget, offset=(column + 4, row))
        await pilot.mouse_up(widget, offset=(column + 4, row))
        await pilot.pause()
        assert app.screen.get_selected_text() == "First"


async def test_text_of_a_streaming_answer_can_be_copied() -> None:
    widget = StreamingMarkdown()
    app = _Host(widget)
    async with app.run_test(size=SIZE) as pilot:
        text = "First paragraph here.\n\nSecond paragraph follows.\n\nThird.\n\nStill stre"
        await _stream(pilot, widget, text, 5)
        await _settle(pilot)
        assert not widget.flattened
        widget.text_select_all()
        await pilot.pause()
        selected = app.screen.get_selected_text()
        assert "First paragraph here." in selected and "Second paragraph follows." in selected


async def test_a_block_the_renderer_fails_on_shows_its_text(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """No traceback reaches a person: a block the renderer fails on shows as plain text."""
    render = MarkdownRenderer.lines

    def failing(renderer, source, width):
        if "bold" in source:
            raise RuntimeError("the renderer failed")
        return render(renderer, source, width)

    monkeypatch.setattr(MarkdownRenderer, "lines", failing)
    widget = StreamingMarkdown()
    app = _Host(widget)
    async with app.run_test(size=SIZE) as pilot:
        widget.append("# Title\n\nSome **bold** words.\n")
        await widget.finish()
        await _settle(pilot)
        text = _screen_text(app)
        assert "  Title" in text and "  Some **bold** words." in text
        assert widget.flattened


async def test_an_answer_removed_while_its_blocks_are_drawn_raises_nothing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The conversation releases items while a resumed history fills in: an answer
    can leave the screen between two of its blocks."""
    import asyncio

    removals: list[asyncio.Task[None]] = []
    render = MarkdownRenderer.lines
    widget = StreamingMarkdown()

    def removed_meanwhile(renderer, source, width):
        if not removals:
            removals.append(asyncio.get_running_loop().create_task(_remove(widget)))
        return render(renderer, source, width)

    async def _remove(answer: StreamingMarkdown) -> None:
        await answer.remove()

    monkeypatch.setattr(MarkdownRenderer, "lines", removed_meanwhile)
    widget.complete(DOC_MIXED)
    app = _Host(widget)
    async with app.run_test(size=SIZE) as pilot:
        await _settle(pilot)
        assert removals and removals[0].done() and removals[0].exception() is None
        assert not widget.is_attached
        assert app.is_running  # nothing raised into the app


async def test_a_link_the_model_wrote_to_anything_but_the_web_does_not_open() -> None:
    """The answer is untrusted: a click opens web and mail links only, not a
    file: or custom-scheme link the model wrote (it would run a handler)."""
    opened: list[str] = []
    widget = StreamingMarkdown()
    app = _Host(widget)
    app.open_url = lambda url, **_: opened.append(url)  # type: ignore[method-assign]
    async with app.run_test(size=SIZE) as pilot:
        widget.append(
            "[one](file:///etc/passwd) [two](vscode://x/run) [three](JavaScript:alert(1)) "
            "[four](mailto:a@example.com)\n"
        )
        await widget.finish()
        await _settle(pilot)
        (row,) = [y for y, line in enumerate(_screen_text(app)) if "one" in line]
        for word in ("one", "two", "three", "four"):
            await pilot.click(offset=(_screen_text(app)[row].index(word) + 1, row))
            await pilot.pause()
        assert opened == ["mailto:a@example.com"]


async def test_a_bare_web_address_is_a_link_and_a_file_name_is_not() -> None:
    """An address with its scheme opens on click; `config.py` is a file the model
    talks about, not a site in Paraguay: it is plain text and opens nothing."""
    opened: list[str] = []
    widget = StreamingMarkdown()
    app = _Host(widget)
    app.open_url = lambda url, **_: opened.append(url)  # type: ignore[method-assign]
    async with app.run_test(size=SIZE) as pilot:
        widget.append("I read config.py and notes.md, then https://example.com/guide too.\n")
        await widget.finish()
        await _settle(pilot)
        (row,) = [y for y, line in enumerate(_screen_text(app)) if "config.py" in line]
        line = _screen_text(app)[row]
        for word in ("config.py", "notes.md", "example.com/guide"):
            await pilot.click(offset=(line.index(word) + 2, row))
            await pilot.pause()
        assert opened == ["https://example.com/guide"]
        underlined = {
            segment.text.strip()
            for segment in screen_lines(app.screen)[row]
            if segment.style and segment.style.underline
        }
        assert underlined == {"https://example.com/guide"}


async def test_the_answer_wears_the_themes_markdown_colours() -> None:
    """Headings take the theme's markdown heading colours, inline code and code
    fences their own colours, and a theme change recolours a finished answer."""
    widget = StreamingMarkdown()
    app = _Host(widget)
    async with app.run_test(size=SIZE) as pilot:
        widget.append(DOC_MIXED)
        await widget.finish()
        await _settle(pilot)

        def colours_of(word: str) -> set[str]:
            return {
                str(segment.style.color.triplet.hex if segment.style.color.triplet else "")
                for strip in screen_lines(app.screen)
                for segment in strip
                if word in segment.text and segment.style and segment.style.color
            }

        h2 = app.theme_variables["markdown-h2-color"].lower()
        assert colours_of("Changes") == {h2}
        # Inline code as Textual's Markdown shows it (dark theme): text-warning
        # at 95% over the background tinted with 10% of warning.
        variables = app.theme_variables
        tint = Color.parse(variables["background"]).blend(Color.parse(variables["warning"]), 0.10)
        code = tint + Color.parse(variables["text-warning"]).multiply_alpha(0.95)
        assert colours_of("inline code") == {code.hex.lower()}
        fence = [
            segment.style
            for strip in screen_lines(app.screen)
            for segment in strip
            if segment.text.strip() in ("def", "return", "greet")
        ]
        assert len({style.color for style in fence if style}) > 1  # highlighted
        dark_cells = _screen_cells(app)
        app.theme = "textual-light"
        await _settle(pilot)
        assert _screen_cells(app) != dark_cells
        assert colours_of("Changes") == {app.theme_variables["markdown-h2-color"].lower()}
