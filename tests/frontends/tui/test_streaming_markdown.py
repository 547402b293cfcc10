"""StreamingMarkdown shows what Textual's Markdown shows, at a flat cost per chunk.

Renders are compared as the screen text a user sees: the same document in a
stock `Markdown` (all at once) and in `StreamingMarkdown` (streamed in chunks).
"""

from __future__ import annotations

from collections import Counter

import pytest
from textual.app import App, ComposeResult
from textual.widget import Widget
from textual.widgets import Markdown

from agentcli.frontends.tui.textual_private import screen_lines
from agentcli.frontends.tui.widgets.streaming_markdown import MarkdownBody, StreamingMarkdown

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


def _screen_text(app: App) -> list[str]:
    # The composited screen, as text: what a user sees. (Call after
    # `pilot.pause()`, which applies pending layout as the refresh timer does.)
    return [strip.text.rstrip() for strip in screen_lines(app.screen)]


def _screen_cells(app: App) -> list[list[tuple[str, str]]]:
    """Every cell of the screen with its style (colours, bold, links...): what a
    user sees, exactly. (Meta, e.g. selection offsets, is not drawn: left out.)"""
    return [
        [(char, str(segment.style or "")) for segment in strip for char in segment.text]
        for strip in screen_lines(app.screen)
    ]


async def _stock_render(source: str, size: tuple[int, int] = SIZE) -> list[str]:
    app = _Host(Markdown(source))
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        return _screen_text(app)


async def _stock_cells(
    source: str, size: tuple[int, int] = SIZE, theme: str | None = None
) -> list[list[tuple[str, str]]]:
    app = _Host(Markdown(source))
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
async def test_streamed_render_matches_markdown(doc: str, chunk: int) -> None:
    expected = await _stock_render(doc)
    widget = StreamingMarkdown()
    app = _Host(widget)
    async with app.run_test(size=SIZE) as pilot:
        await _stream(pilot, widget, doc, chunk)
        await widget.finish()
        await pilot.pause()
        assert _screen_text(app) == expected
        assert widget.source == doc
        # A few refreshes later, still the same.
        await pilot.pause()
        await pilot.pause()
        assert _screen_text(app) == expected


async def test_a_streaming_answer_shows_the_screen_one_widget() -> None:
    """Issue 25: the screen lays out and paints the answer alone, never its blocks:
    they are rendered to lines in a container that is not displayed, and only the
    open tail's widgets stay there."""
    widget = StreamingMarkdown()
    app = _Host(widget)
    async with app.run_test(size=SIZE) as pilot:
        await _stream(pilot, widget, DOC_MIXED, 5)  # not finished: the last block is open
        await _settle(pilot)
        (bench,) = widget.children
        assert isinstance(bench, MarkdownBody) and not bench.display
        assert len(bench.children) == 1  # the open tail ("Closing words.")
        assert not widget.flattened
        # Not one of them has a place on the screen (the screen never laid them out).
        assert widget.region and not any(w.region for w in bench.walk_children(with_self=True))


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
    style for style what Textual's Markdown shows for the same text."""
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


async def test_finished_blocks_are_parsed_once() -> None:
    widget = StreamingMarkdown()
    parsed: Counter[tuple[str, int]] = Counter()
    render_frozen = widget._render_frozen

    def counting(source: str, first_line: int):
        parsed[(source, first_line)] += 1
        return render_frozen(source, first_line)

    widget._render_frozen = counting  # type: ignore[method-assign]
    app = _Host(widget)
    async with app.run_test(size=SIZE) as pilot:
        await _stream(pilot, widget, DOC_MIXED, 2)
        frozen_before_finish = set(parsed)
        await widget.finish()
        await pilot.pause()
    assert parsed, "finished blocks were rendered"
    assert set(parsed.values()) == {1}
    # The blocks frozen while streaming are a prefix of the document, in order.
    first_lines = [first for _source, first in parsed]
    assert first_lines == sorted(first_lines)
    assert frozen_before_finish < set(parsed)
    assert "".join(source for source, _ in parsed) == DOC_MIXED


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
    from agentcli.frontends.tui.widgets import streaming_markdown

    widget = StreamingMarkdown()
    app = _Host(widget)
    async with app.run_test(size=SIZE) as pilot:
        widget.append(DOC_MIXED)
        await widget.finish()
        await _settle(pilot)
        tall = widget.get_content_height(app.size, app.size, app.size.width)
        heights: list[int] = []
        render = streaming_markdown._block_lines

        def seen(block, width):
            heights.append(widget.get_content_height(app.size, app.size, width))
            return render(block, width)

        monkeypatch.setattr(streaming_markdown, "_block_lines", seen)
        await pilot.resize_terminal(SIZE[0] - 20, SIZE[1])
        await _settle(pilot)
        assert heights and set(heights) == {tall}  # each block rendered: the old lines shown
        assert _screen_text(app) == await _stock_render(DOC_MIXED, (SIZE[0] - 20, SIZE[1]))


async def test_the_loop_gets_a_turn_between_the_blocks_of_a_long_answer(monkeypatch) -> None:
    """Drawing an answer's blocks is not one long step of the loop: something queued
    while the first block renders (a key typed) runs before the last one renders."""
    import asyncio

    from agentcli.frontends.tui.widgets import streaming_markdown

    happened: list[str] = []
    render = streaming_markdown._block_lines

    def seen(block, width):
        if not happened:
            asyncio.get_running_loop().call_soon(happened.append, "queued meanwhile")
        happened.append("block")
        return render(block, width)

    monkeypatch.setattr(streaming_markdown, "_block_lines", seen)
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


async def test_a_finished_answer_still_on_screen_holds_no_removed_block_widgets(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Issue 25: answers that stay mounted hold only their lines. The block
    widgets rendered to lines (and the streamed tail's earlier parses) must leave memory;
    each kept a tree of widgets with their render caches, about 2 MB an answer."""
    import gc
    import weakref

    from textual.widgets.markdown import MarkdownBlock

    blocks: list[weakref.ref[MarkdownBlock]] = []
    original = MarkdownBody.build_blocks

    def tracked(body: MarkdownBody, source: str, first_line: int) -> list[MarkdownBlock]:
        built = original(body, source, first_line)
        blocks.extend(weakref.ref(block) for block in built)
        return built

    monkeypatch.setattr(MarkdownBody, "build_blocks", tracked)
    widget = StreamingMarkdown()
    app = _Host(widget)
    async with app.run_test(size=SIZE) as pilot:
        await _stream(pilot, widget, DOC_MIXED, 20)
        body = weakref.ref(widget._bench)
        await widget.finish()
        await _settle(pilot)
        assert widget.flattened, "the finished answer keeps its lines only"
        gc.collect()
        alive = [ref() for ref in blocks if ref() is not None]
        assert alive == []
        assert body() is None
        assert _screen_text(app) == await _stock_render(DOC_MIXED)


async def test_a_block_the_compositor_fails_on_shows_its_text(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """No traceback reaches a person: a block Textual cannot render shows as plain text."""
    from agentcli.frontends.tui.widgets import streaming_markdown

    def failing(root: Widget, size: object) -> list[object]:
        raise RuntimeError("the compositor failed")

    monkeypatch.setattr(streaming_markdown, "render_detached", failing)
    widget = StreamingMarkdown()
    app = _Host(widget)
    async with app.run_test(size=SIZE) as pilot:
        widget.append("# Title\n\nSome **bold** words.\n")
        await widget.finish()
        await _settle(pilot)
        text = _screen_text(app)
        assert "  # Title" in text and "  Some **bold** words." in text
        assert widget.flattened


async def test_an_answer_removed_while_its_blocks_mount_draws_nothing_and_raises_nothing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The conversation releases items while a resumed history fills in: an answer
    (its children first) can leave the screen while its blocks are being mounted."""
    widget = StreamingMarkdown()
    app = _Host(widget)
    async with app.run_test(size=SIZE) as pilot:
        widget.append("First paragraph.\n\n")
        await widget.flush()
        original = MarkdownBody.mount_all

        def removed_meanwhile(body: MarkdownBody, widgets, **kwargs):
            async def mount() -> None:
                await body.remove()
                await original(body, widgets, **kwargs)

            return mount()

        monkeypatch.setattr(MarkdownBody, "mount_all", removed_meanwhile)
        widget.append("Second paragraph.\n\nThird")
        await widget.flush()  # no MountError
        assert widget._bench is None
        monkeypatch.undo()
        await widget.finish()  # drawn anew, whole
        await _settle(pilot)
        assert _screen_text(app) == await _stock_render(
            "First paragraph.\n\nSecond paragraph.\n\nThird"
        )
