"""How a piece of an answer's markdown becomes lines: Rich's renderer, in the app's theme.

An answer used to be drawn by mounting Textual's markdown block widgets (a tree
of ~150 nodes for a ~2 KB answer) in a hidden container and rendering them
through a compositor of their own: about two thirds of the CPU an answer cost,
and more than Claude Code spends on the whole answer (bench/terminal_answers_bench.py).
Rich renders the same markdown straight to segments, with no widget, no CSS and
no layout, about twenty times faster; its output is what the answer draws.

The look follows the app's theme: heading colours and text styles are Textual's
own `markdown-h1-color`... variables, inline code and links are styled as
Textual styles them, code fences are highlighted with a dark or light Pygments
theme on the theme's surface colour. Headings are left-aligned (Rich centres an
H1), as in Claude Code. A link keeps its terminal hyperlink and gets a click
action (`link(href)`) for the widget showing it.

The text is untrusted, but it reaches this module already cleaned of control
characters (`MarkdownCleaner`), and Rich's `Markdown` reads neither console
markup nor emoji codes in it.
"""

from __future__ import annotations

import io
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from typing import ClassVar

from markdown_it import MarkdownIt
from rich import box
from rich.console import Console, ConsoleOptions, RenderResult
from rich.markdown import (
    BlockQuote,
    CodeBlock,
    Heading,
    ListItem,
    Markdown,
    TableElement,
)
from rich.segment import Segment
from rich.style import Style
from rich.syntax import Syntax
from rich.table import Table
from rich.theme import Theme
from textual.color import Color, ColorParseError

Line = tuple[Segment, ...]
"""One rendered line: its segments (no Strip, which would carry caches)."""

DARK_CODE_THEME = "monokai"
LIGHT_CODE_THEME = "friendly"


@dataclass(frozen=True)
class MarkdownLook:
    """Everything about an answer's appearance that comes from the app's theme."""

    styles: Mapping[str, Style]
    """Rich's markdown style names (`markdown.h1`...) and their styles."""
    base: Style
    """The answer's own text colour on its background: under every segment."""
    code_theme: str
    code_background: str | None

    @classmethod
    def from_theme(cls, variables: Mapping[str, str], dark: bool, base: Style) -> MarkdownLook:
        """The look for an app whose `theme_variables` are `variables`."""
        background = _color(variables.get("background"), Color(0, 0, 0))
        if base.bgcolor is not None:
            background = Color.from_rich_color(base.bgcolor)
        foreground = _color(variables.get("foreground"), Color(224, 224, 224))

        def color(name: str, fallback: Color = foreground) -> Color:
            return background + _color(variables.get(name), fallback)

        def style(fg: Color | None = None, bg: Color | None = None, words: str = "") -> Style:
            return Style.parse(words) + Style(
                color=fg.rich_color if fg else None, bgcolor=bg.rich_color if bg else None
            )

        styles: dict[str, Style] = {}
        for level in range(1, 7):
            prefix = f"markdown-h{level}"
            heading_bg = _color(variables.get(f"{prefix}-background"), Color(0, 0, 0, 0))
            styles[f"markdown.h{level}"] = style(
                color(f"{prefix}-color"),
                background + heading_bg if heading_bg.a else None,
                _text_style(variables.get(f"{prefix}-text-style")),
            )
        # Inline code as Textual's Markdown shows it: text at 95% over a tint.
        code_text, tint, strength = (
            ("text-warning", "warning", 0.10) if dark else ("text-error", "error", 0.05)
        )
        code_bg = background.blend(color(tint), strength)
        code_fg = code_bg + _color(variables.get(code_text), foreground).multiply_alpha(0.95)
        accent = color("text-primary")
        styles.update(
            {
                "markdown.paragraph": Style(),
                "markdown.text": Style(),
                "markdown.em": Style(italic=True),
                "markdown.strong": Style(bold=True),
                "markdown.s": Style(strike=True),
                "markdown.code": style(code_fg, code_bg),
                "markdown.code_block": Style(),
                "markdown.block_quote": style(color("foreground-muted")),
                "markdown.block_quote.border": style(color("primary")),
                "markdown.item.bullet": style(accent, words="bold"),
                "markdown.item.number": style(accent, words="bold"),
                "markdown.hr": style(color("secondary")),
                "markdown.link": style(accent, words="underline"),
                "markdown.link_url": style(accent, words="underline"),
                "markdown.table.border": style(color("foreground-muted")),
                "markdown.table.header": Style(bold=True),
                "markdown.kbd": Style(bold=True),
            }
        )
        surface = background.blend(foreground, 0.06)
        return cls(
            styles=styles,
            base=base,
            code_theme=DARK_CODE_THEME if dark else LIGHT_CODE_THEME,
            code_background=surface.hex,
        )


class MarkdownRenderer:
    """Renders pieces of markdown to lines in one look (kept per answer and theme)."""

    def __init__(self, look: MarkdownLook) -> None:
        self.look = look
        self._console = Console(
            file=io.StringIO(),
            theme=Theme(dict(look.styles)),
            color_system="truecolor",
            force_terminal=True,
            legacy_windows=False,
            markup=False,
            emoji=False,
            highlight=False,
            width=80,
        )

    def lines(self, source: str, width: int) -> list[Line]:
        """`source` laid out at `width` cells, one tuple of segments per line,
        each exactly `width` cells wide, on the answer's background."""
        if width <= 0 or not source.strip():
            return []
        document = _AnswerMarkdown(
            source,
            code_theme=self.look.code_theme,
            code_background=self.look.code_background,
        )
        options = self._console.options.update(width=width, height=None)
        rendered = self._console.render_lines(document, options, style=self.look.base)
        # A block starts and ends where its text does (Rich puts a blank line before
        # a list or a table): the gaps between blocks are the answer's to draw.
        base = self.look.base
        start, end = 0, len(rendered)
        while start < end and _blank(rendered[start], base):
            start += 1
        while end > start and _blank(rendered[end - 1], base):
            end -= 1
        return [_with_click_actions(line) for line in rendered[start:end]]


class _LeftHeading(Heading):
    """Every heading left-aligned, an H1 too (Rich centres it, in a box)."""

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        text = self.text.copy()
        text.justify = "left"
        yield text


class _CodeFence(CodeBlock):
    """Highlighted code on the theme's surface colour, one column of padding aside."""

    @classmethod
    def create(cls, markdown: Markdown, token: object) -> _CodeFence:
        info = getattr(token, "info", "") or ""
        fence = cls(info.partition(" ")[0] or "text", markdown.code_theme)
        fence.background = getattr(markdown, "code_background", None)
        return fence

    background: str | None = None

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield Syntax(
            str(self.text).rstrip("\n"),
            self.lexer_name,
            theme=self.theme,
            word_wrap=True,
            padding=(0, 1),
            background_color=self.background,
        )


class _NumberedItem(ListItem):
    """An ordered list's item numbered `1.` (Rich writes `1`), as it was written."""

    def render_number(
        self, console: Console, options: ConsoleOptions, number: int, last_number: int
    ) -> RenderResult:
        label = f" {number}.".rjust(len(f" {last_number}.")) + " "
        lines = console.render_lines(
            self.elements,
            options.update(width=max(options.max_width - len(label), 1)),
            style=self.style,
        )
        number_style = console.get_style("markdown.item.number", default="none")
        numeral, padding = Segment(label, number_style), Segment(" " * len(label))
        new_line = Segment.line()
        for index, line in enumerate(lines):
            yield numeral if index == 0 else padding
            yield from line
            yield new_line


class _Quote(BlockQuote):
    """A quote: a bar in the theme's primary colour, the text muted."""

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        inner = options.update(width=max(options.max_width - 2, 1))
        lines = console.render_lines(self.elements, inner, style=self.style)
        bar = Segment("▌ ", console.get_style("markdown.block_quote.border"))
        new_line = Segment.line()
        for line in lines:
            yield bar
            yield from line
            yield new_line


class _BoxedTable(TableElement):
    """A table with a rule under its header and no blank edges above and below."""

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        for table in super().__rich_console__(console, options):
            if isinstance(table, Table):
                table.box = box.SIMPLE_HEAD
                table.show_edge = False
            yield table


class _AnswerMarkdown(Markdown):
    """Rich's `Markdown` with the elements above."""

    elements: ClassVar = {
        **Markdown.elements,
        "heading_open": _LeftHeading,
        "fence": _CodeFence,
        "code_block": _CodeFence,
        "blockquote_open": _Quote,
        "table_open": _BoxedTable,
        "list_item_open": _NumberedItem,
    }

    def __init__(self, markup: str, *, code_theme: str, code_background: str | None) -> None:
        # Rich's own __init__ builds a new parser for every document: a fifth of
        # the cost of a block. These are the attributes it sets, the parse shared.
        self.markup = markup
        self.parsed = _parser().parse(markup)
        self.code_theme = code_theme
        self.justify = None
        self.style = "none"
        self.hyperlinks = True
        self.inline_code_lexer = None
        self.inline_code_theme = code_theme
        self.code_background = code_background


def warm_up(source: str, languages: list[str]) -> None:
    """Parse `source` once (the parser and its link finder compile their patterns on
    first use), and load the lexers of `languages` and both code themes, off the
    app's loop: each first use is a long moment for the frame that meets it."""
    _parser().parse(source)
    for theme in (DARK_CODE_THEME, LIGHT_CODE_THEME):
        Syntax.get_theme(theme)
    for language in languages:
        Syntax("x", language, theme=DARK_CODE_THEME).highlight("x")


@cache
def _parser() -> MarkdownIt:
    """The parser Rich's `Markdown` builds (CommonMark, tables, strikethrough), once,
    and bare web addresses made links. Only an address with its scheme is one: a
    file name such as `config.py` is not taken for a site in Paraguay."""
    parser = MarkdownIt("commonmark", {"linkify": True}).enable(
        ["strikethrough", "table", "linkify"]
    )
    if parser.linkify is not None:  # None only without linkify-it-py: no links then
        parser.linkify.set({"fuzzy_link": False})
    return parser


def _with_click_actions(line: list[Segment]) -> Line:
    """The line's segments, a link's with the click action that opens it."""
    out = []
    for segment in line:
        style = segment.style
        if style is not None and style.link:
            action = Style.from_meta({"@click": f"link({style.link!r})"})
            segment = Segment(segment.text, style + action, segment.control)
        out.append(segment)
    return tuple(out)


def _blank(line: list[Segment], base: Style) -> bool:
    """Is the line empty: no text, and no cell painted apart from the answer's
    background (a code fence's surface is not empty)?"""
    return all(
        not segment.text.strip()
        and (segment.style is None or segment.style.bgcolor in (None, base.bgcolor))
        for segment in line
    )


def _color(value: str | None, fallback: Color) -> Color:
    """A theme variable as a colour (`auto 87%` and the like: the fallback)."""
    if not value or value in ("transparent", "initial"):
        return fallback if value is None else Color(0, 0, 0, 0)
    try:
        return Color.parse(value)
    except ColorParseError:
        return fallback


def _text_style(value: str | None) -> str:
    return "" if not value or value == "none" else value
