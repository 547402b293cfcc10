"""An answer in the app is one widget, and looks as its whole text rendered at once
(issue 25: streaming an answer costs no more CPU than it must).

Every frame composes each widget that covers a line, so an answer is drawn by one
widget (a finished one has no child at all). The session is played for real: the
app's engine and Anthropic provider against the fake Messages API, answer after
answer; the reference is the same session with each answer's whole text given to
`MarkdownRenderer` at the end (no streaming, no splitting into blocks).
"""

from __future__ import annotations

import pytest
from rich.style import Style
from textual.strip import Strip
from textual.widget import Widget

from agentcli.frontends.tui.textual_private import screen_lines
from agentcli.frontends.tui.widgets import conversation
from agentcli.frontends.tui.widgets.markdown_render import MarkdownLook, MarkdownRenderer
from agentcli.frontends.tui.widgets.streaming_markdown import StreamingMarkdown
from tests.fakeapi import reply, text
from tests.frontends.tui.helpers import idle, make_app, send, wait_for

pytestmark = pytest.mark.timeout(300)

SIZE = (100, 30)
ANSWERS = 4


def answer(n: int) -> str:
    return (
        f"## Finding {n}\n\nThe loader keeps its cache **forever**; part {n} reads it.\n\n"
        "- it is read once\n- nothing clears it\n\n"
        "| caller | cached |\n|---|---|\n| app | yes |\n\n"
        f"```python\ndef load_{n}(path):\n    return cache[path]\n```\n\n"
        f"> Note {n}: the CLI reads it first.\n\nDone with part {n}.\n"
    )


class WholeMarkdown(Widget):
    """The reference answer: the whole text rendered at once when it ends, with the
    two columns of padding an answer has on each side (within the padding the app's
    style sheet gives every answer)."""

    DEFAULT_CSS = "WholeMarkdown { width: 1fr; height: auto; }"

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.styles.padding = (0, 2, 0, 4)
        self.source = ""
        self.finished = False

    def append(self, text: str) -> None:
        self.source += text

    async def finish(self) -> None:
        self.finished = True
        self.refresh(layout=True)

    def _lines(self, width: int) -> list:
        if not self.finished:
            return []
        base = Style(color=self.rich_style.color, bgcolor=self.rich_style.bgcolor)
        look = MarkdownLook.from_theme(self.app.theme_variables, self.app.current_theme.dark, base)
        return MarkdownRenderer(look).lines(self.source, width)

    def get_content_height(self, container, viewport, width: int) -> int:
        return len(self._lines(width))

    def render_line(self, y: int) -> Strip:
        lines = self._lines(self.content_size.width)
        if y < len(lines):
            return Strip(lines[y])
        return Strip.blank(self.content_size.width, Style(bgcolor=self.rich_style.bgcolor))


def conversation_cells(app) -> list[list[tuple[str, str]]]:
    """Every cell of the conversation with its style: what a person sees there."""
    region = app.conversation.region
    return [
        [(char, cell_style(char, segment.style)) for segment in strip for char in segment.text][
            region.x : region.right
        ]
        for strip in screen_lines(app.screen)[region.y : region.bottom]
    ]


def cell_style(char: str, style: Style | None) -> str:
    """A cell's style as it shows: a blank cell shows its background (and a line
    through or under it), never its text colour."""
    if style is not None and char == " " and not (style.underline or style.strike or style.reverse):
        style = Style(bgcolor=style.bgcolor)
    return str(style or "")


def text_of(cells: list[list[tuple[str, str]]]) -> list[str]:
    return ["".join(char for char, _ in row).rstrip() for row in cells]


async def play(fake_api, fake_api_provider, folder, *, reference: bool) -> list[object]:
    """Four prompts answered; what the conversation shows at the end and a page up."""
    app = make_app(fake_api_provider, folder)
    shown: list[object] = []
    async with app.run_test(size=SIZE) as pilot:
        for n in range(ANSWERS):
            fake_api.enqueue(reply(text(answer(n))))
            await send(pilot, f"prompt number {n}")
            await idle(pilot, app)
        kind = WholeMarkdown if reference else StreamingMarkdown
        answers = list(app.conversation.query(kind))
        assert [a.source for a in answers] == [answer(n) for n in range(ANSWERS)]
        if not reference:
            await wait_for(pilot, lambda: all(a.flattened for a in answers), "flat answers")
            for each in answers:
                assert list(each.walk_children()) == []  # one widget, nothing inside
        for _ in range(3):
            await pilot.pause()
        shown.append(conversation_cells(app))
        await pilot.press("pageup")
        for _ in range(3):
            await pilot.pause()
        shown.append(conversation_cells(app))
    return shown


async def test_each_answer_is_one_widget_and_looks_as_its_whole_text_rendered_at_once(
    fake_api, fake_api_provider, tmp_path, monkeypatch
):
    flat = await play(fake_api, fake_api_provider, tmp_path / "flat", reference=False)
    monkeypatch.setattr(conversation, "make_answer_widget", WholeMarkdown)
    stock = await play(fake_api, fake_api_provider, tmp_path / "stock", reference=True)
    # Not a line's place, a cell or a colour differs from the whole text rendered at once.
    assert [text_of(screen) for screen in flat] == [text_of(screen) for screen in stock]
    assert flat == stock
