"""Untrusted text made safe to show in a terminal.

Almost everything agentcli shows comes from something it does not control: a
command's output, a file the command prints, a server's error, the model's
own words. A terminal obeys the escape sequences in what it is given, so any
of those could clear the screen, move the cursor, set the window title for
good, write the clipboard (OSC 52) or plant a hidden link. What leaves this
module can only be looked at:

- `terminal_text()`: colours and text attributes (SGR) become rich styles;
  every other control is dropped: CSI sequences of any kind, OSC (titles,
  clipboard, hyperlinks), DCS/SOS/PM/APC strings, other escape sequences, bare
  ESC, the C1 controls (U+0080-U+009F, 8-bit CSI and OSC included) and C0
  controls other than newline and tab. Lines show what a terminal would
  finally show: `\\r` returns to column 0 and what follows overwrites,
  backspace steps back one column (`\\r\\n` is simply a line end).
- `terminal_plain()`: the same, as a plain string, for places without styles
  (headless output written to a terminal).
- `TerminalDecoder`: the same for text that arrives in chunks (live command
  output). A sequence or a `\\r\\n` cut between two chunks is held back until
  the next one, so it never leaks and never eats real text.
- `visible_controls()`: for text a person must read exactly (a command that
  waits for approval, a file name): each control is shown (`␛`, `␍`), not
  obeyed, so nothing in it can be hidden by overwriting.
- `MarkdownCleaner` / `clean_markdown()`: for markdown source, before it is
  parsed: sequences and controls are dropped, line endings kept for the parser.

It sits at the top of the package, beside the front ends rather than in one,
because both use it: the Textual app and headless `-p`. It needs only rich
(`Text`, `Style`), never Textual, so headless stays light.

Columns are counted in characters, not cells: a `\\r` overwrite over wide
(CJK, emoji) characters may differ from a terminal's by a cell or two, which
changes what is shown, never what is safe.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache
from typing import NamedTuple, Protocol

from rich.ansi import SGR_STYLE_MAP
from rich.color import Color
from rich.style import Style
from rich.text import Span, Text

ESC = "\x1b"
# Everything the scanner must look at: C0 controls but tab, DEL, C1 controls.
_SPECIAL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f-\x9f]")
# The next thing to look at: a whole SGR sequence (group 1: its parameters) or a special.
_NEXT = re.compile(r"\x1b\[([0-9;]{0,64})m|[\x00-\x08\x0a-\x1f\x7f-\x9f]")
# The same without newline: a chunk without any of these only needs splitting.
_SPECIAL_BUT_NEWLINE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
# What markdown source must not keep: the same, but carriage return too is the parser's.
_MARKDOWN_SPECIAL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
# CSI: parameters and intermediates, then a final byte (absent: cut or malformed).
_CSI = re.compile(r"(?:\x1b\[|\x9b)([\x20-\x3f]*)([\x40-\x7e])?")
_SGR_PARAMS = re.compile(r"[0-9;:]{0,128}")
# Other escape sequences: ESC, intermediates, a final byte (`ESC c`, `ESC 7`, `ESC ( B`).
_ESCAPE = re.compile(r"\x1b[\x20-\x2f]*([\x30-\x7e])?")
# Control strings (OSC, DCS, SOS, PM, APC) run until BEL, ST, CAN, SUB or any ESC.
_STRING_BODY = re.compile(r"[^\x07\x18\x1a\x1b\x9c]*")
_STRING_INTRODUCERS = frozenset("]P_^X")
_C1_STRINGS = frozenset("\x90\x98\x9d\x9e\x9f")
# A held-back sequence longer than this is not a real one: it is dropped.
MAX_HELD = 1024


class _Sink(Protocol):
    def text(self, run: str) -> None: ...
    def newline(self) -> None: ...
    def carriage_return(self) -> None: ...
    def backspace(self) -> None: ...
    def sgr(self, params: str) -> None: ...


class _Scanner:
    """Splits text into printable runs and the few controls that matter.

    Calls its sink for each; everything else is consumed and dropped. Between
    chunks it remembers an incomplete sequence (held back, at most `MAX_HELD`
    characters) and whether it is inside a control string.
    """

    __slots__ = ("_held", "_in_string", "_sink")

    def __init__(self, sink: _Sink) -> None:
        self._sink = sink
        self._held = ""
        self._in_string = False

    @property
    def pending(self) -> bool:
        """Is a sequence or a control string open at the end of what was fed?"""
        return bool(self._held) or self._in_string

    def feed(self, chunk: str, *, final: bool = False) -> None:
        """Scan a chunk; `final` means no more will come (a cut sequence is dropped)."""
        s = self._held + chunk if self._held else chunk
        self._held = ""
        pos = self._string_end(s, 0, final) if self._in_string else 0
        if pos == 0 and _SPECIAL_BUT_NEWLINE.search(s) is None:
            self._lines_only(s)
        else:
            self._scan(s, pos, final)
        if final:
            self._held = ""
            self._in_string = False

    def _lines_only(self, s: str) -> None:
        sink = self._sink
        first, *rest = s.split("\n")
        if first:
            sink.text(first)
        for line in rest:
            sink.newline()
            if line:
                sink.text(line)

    def _scan(self, s: str, pos: int, final: bool) -> None:
        sink, end, search = self._sink, len(s), _NEXT.search
        while pos < end:
            found = search(s, pos)
            if found is None:
                sink.text(s[pos:])
                return
            at = found.start()
            if at > pos:
                sink.text(s[pos:at])
            sgr = found.group(1)
            if sgr is not None:  # the commonest sequence, matched whole
                sink.sgr(sgr)
                pos = found.end()
                continue
            char = s[at]
            pos = at + 1
            if char == "\n":
                sink.newline()
            elif char == "\r":
                sink.carriage_return()
            elif char == "\b":
                sink.backspace()
            elif char == ESC or char >= "\x80":
                pos = self._sequence(s, at, final)
            # any other control is dropped

    def _sequence(self, s: str, at: int, final: bool) -> int:
        """Consume the sequence starting at `at` (ESC or a C1 control); the next position."""
        char = s[at]
        following = s[at + 1] if at + 1 < len(s) else ""
        if char == "\x9b" or (char == ESC and following == "["):
            return self._csi(s, at, final)
        if char in _C1_STRINGS:
            self._in_string = True
            return self._string_end(s, at + 1, final)
        if char == ESC and following and following in _STRING_INTRODUCERS:
            self._in_string = True
            return self._string_end(s, at + 2, final)
        if char == ESC:
            match = _ESCAPE.match(s, at)
            if match.group(1) is None and match.end() == len(s):
                return self._hold(s, at, final)
            return match.end()  # a whole sequence, or a malformed start: dropped
        return at + 1  # another C1 control

    def _csi(self, s: str, at: int, final: bool) -> int:
        match = _CSI.match(s, at)
        final_byte = match.group(2)
        if final_byte is None:
            if match.end() == len(s):
                return self._hold(s, at, final)
            return match.end()  # malformed: what it consumed is dropped
        if final_byte == "m" and _SGR_PARAMS.fullmatch(match.group(1)):
            self._sink.sgr(match.group(1))
        return match.end()

    def _string_end(self, s: str, start: int, final: bool) -> int:
        """Skip a control string's body from `start`; the position after its end."""
        stop = _STRING_BODY.match(s, start).end()
        if stop == len(s):
            return stop  # still inside: the rest is dropped as it comes
        if s[stop] == ESC:
            if stop + 1 == len(s):
                return self._hold(s, stop, final)  # maybe the first half of ST
            self._in_string = False
            return stop + 2 if s[stop + 1] == "\\" else stop  # another ESC starts anew
        self._in_string = False
        return stop + 1  # BEL, 8-bit ST, CAN or SUB

    def _hold(self, s: str, at: int, final: bool) -> int:
        if not final and len(s) - at <= MAX_HELD:
            self._held = s[at:]
        return len(s)


# -- colours ------------------------------------------------------------------


@lru_cache(maxsize=1024)
def apply_sgr(style: Style | None, params: str) -> Style | None:
    """The style after an SGR sequence (`ESC [ params m`); None for no style."""
    current = style or Style.null()
    codes = iter(_sgr_codes(params))
    for code in codes:
        if code == 0:
            current = Style.null()
        elif code in SGR_STYLE_MAP:
            current += Style.parse(SGR_STYLE_MAP[code])
        elif code in (38, 48):
            color = _extended_color(codes)
            if color is not None:
                current += Style(color=color) if code == 38 else Style(bgcolor=color)
    return current or None


def _sgr_codes(params: str) -> list[int]:
    """Numbers of an SGR; `38:2::r:g:b` (colon form, colour space id) as `38;2;r;g;b`."""
    codes: list[int] = []
    for group in params.split(";"):
        parts = group.split(":")
        if len(parts) == 6 and parts[1] == "2":
            del parts[2]
        codes.extend(min(int(part), 255) if part else 0 for part in parts)
    return codes


def _extended_color(codes: Iterable[int]) -> Color | None:
    codes = iter(codes)
    kind = next(codes, None)
    if kind == 5:
        number = next(codes, None)
        return Color.from_ansi(number) if number is not None else None
    if kind == 2:
        rgb = [next(codes, None) for _ in range(3)]
        if None not in rgb:
            return Color.from_rgb(*rgb)  # type: ignore[arg-type]
    return None


# -- lines as a terminal shows them -------------------------------------------


class Line(NamedTuple):
    """One shown line: its text and the styles over it."""

    plain: str
    spans: tuple[Span, ...] = ()


EMPTY_LINE = Line("")


class _Lines:
    """The line being written, as a terminal would show it, and the lines finished.

    Text appended at the end of the line is kept as runs (the common case);
    after a `\\r` or a backspace the line becomes one cell per character, so
    what follows can overwrite in place.
    """

    __slots__ = ("_cell_styles", "_cells", "_col", "_runs", "done", "style", "styled")

    def __init__(self, *, styled: bool) -> None:
        self.styled = styled
        self.style: Style | None = None
        self.done: list[Line] = []
        self._runs: list[tuple[str, Style | None]] = []
        self._cells: list[str] | None = None
        self._cell_styles: list[Style | None] = []
        self._col = 0

    def text(self, run: str) -> None:
        cells = self._cells
        if cells is None:
            self._runs.append((run, self.style))
            return
        start, end = self._col, self._col + len(run)
        cells[start:end] = run
        if self.styled:
            self._cell_styles[start:end] = [self.style] * len(run)
        self._col = end

    def newline(self) -> None:
        self.done.append(self.current())
        self._runs = []
        self._cells = None
        self._cell_styles = []

    def carriage_return(self) -> None:
        self._to_cells()
        self._col = 0

    def backspace(self) -> None:
        self._to_cells()
        self._col = max(0, self._col - 1)

    def sgr(self, params: str) -> None:
        if self.styled:
            self.style = apply_sgr(self.style, params)

    def current(self) -> Line:
        """The line being written, as it shows now."""
        if self._cells is not None:
            runs = _runs_of_cells(self._cells, self._cell_styles, self.styled)
        else:
            runs = self._runs
        if not runs:
            return EMPTY_LINE
        if len(runs) == 1:
            run, style = runs[0]
            return Line(run, (Span(0, len(run), style),) if style else ())
        spans = []
        offset = 0
        for run, style in runs:
            if style:
                spans.append(Span(offset, offset + len(run), style))
            offset += len(run)
        return Line("".join(run for run, _ in runs), tuple(spans))

    def _to_cells(self) -> None:
        if self._cells is not None:
            return
        self._cells = [char for run, _ in self._runs for char in run]
        if self.styled:
            self._cell_styles = [style for run, style in self._runs for _ in run]
        self._col = len(self._cells)
        self._runs = []


def _runs_of_cells(
    cells: list[str], styles: list[Style | None], styled: bool
) -> list[tuple[str, Style | None]]:
    if not styled:
        return [("".join(cells), None)] if cells else []
    runs: list[tuple[str, Style | None]] = []
    start = 0
    for index in range(1, len(cells) + 1):
        if index == len(cells) or styles[index] is not styles[start]:
            runs.append(("".join(cells[start:index]), styles[start]))
            start = index
    return runs


class TerminalDecoder:
    """Text in chunks -> safe lines, as a terminal would show them.

    `feed()` returns the lines finished by the chunk; `partial` is the line
    still being written. State (colour, a cut sequence, a control string that
    is still open) carries from one chunk to the next.
    """

    def __init__(self, *, styled: bool = True) -> None:
        self._lines = _Lines(styled=styled)
        self._scanner = _Scanner(self._lines)

    def feed(self, chunk: str) -> list[Line]:
        """Take a chunk; the lines it finished."""
        self._scanner.feed(chunk)
        return self._take_done()

    def close(self) -> list[Line]:
        """The end of the text: a sequence cut at the end is dropped. Lines it finished."""
        self._scanner.feed("", final=True)
        return self._take_done()

    @property
    def partial(self) -> Line:
        """The line being written (empty right after a newline)."""
        return self._lines.current()

    def _take_done(self) -> list[Line]:
        done, self._lines.done = self._lines.done, []
        return done


def lines_text(lines: Iterable[Line], style: str | Style = "") -> Text:
    """Lines joined by newlines into one rich Text, with their styles."""
    plains: list[str] = []
    spans: list[Span] = []
    offset = 0
    for line in lines:
        plains.append(line.plain)
        if line.spans:
            spans.extend(
                Span(span.start + offset, span.end + offset, span.style) for span in line.spans
            )
        offset += len(line.plain) + 1
    return Text("\n".join(plains), style=style, spans=spans)


def _decode(raw: str, *, styled: bool) -> list[Line]:
    decoder = TerminalDecoder(styled=styled)
    lines = decoder.feed(raw)
    lines.extend(decoder.close())
    lines.append(decoder.partial)
    return lines


def terminal_text(raw: str, style: str | Style = "") -> Text:
    """Untrusted text as a rich Text: SGR colours kept as styles, other controls dropped."""
    if _SPECIAL_BUT_NEWLINE.search(raw) is None:
        return Text(raw, style=style)
    return lines_text(_decode(raw, styled=True), style)


def terminal_plain(raw: str) -> str:
    """Untrusted text as plain text: no escape, no control but newline and tab."""
    if _SPECIAL_BUT_NEWLINE.search(raw) is None:
        return raw
    return "\n".join(line.plain for line in _decode(raw, styled=False))


# -- text to be read exactly --------------------------------------------------

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def _picture(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code < 0x20:
        return chr(0x2400 + code)  # ␀ ... ␟ (␛ for ESC, ␍ for CR)
    if code == 0x7F:
        return "␡"
    return "␛" + chr(code - 0x40)  # a C1 control is ESC + its 7-bit twin: U+009B is ␛[


def visible_controls(raw: str) -> str:
    """Every control character but newline and tab shown as a symbol, not obeyed."""
    return _CONTROL.sub(_picture, raw)


# -- markdown source ----------------------------------------------------------


class _Collect:
    """A sink that keeps the text and its line endings (for a markdown parser)."""

    __slots__ = ("parts",)

    def __init__(self) -> None:
        self.parts: list[str] = []

    def text(self, run: str) -> None:
        self.parts.append(run)

    def newline(self) -> None:
        self.parts.append("\n")

    def carriage_return(self) -> None:
        self.parts.append("\r")

    def backspace(self) -> None:
        pass

    def sgr(self, params: str) -> None:
        pass


class MarkdownCleaner:
    """Markdown source in chunks -> the same source without sequences or controls.

    Newlines, carriage returns and tabs stay: they are the parser's to read.
    A chunk without any control (nearly all of them) is returned as it is.
    What is held back at the end is never text (the start of a sequence), so
    a stream needs no closing call.
    """

    def __init__(self) -> None:
        self._sink = _Collect()
        self._scanner = _Scanner(self._sink)

    def feed(self, chunk: str) -> str:
        scanner = self._scanner
        if not scanner.pending and _MARKDOWN_SPECIAL.search(chunk) is None:
            return chunk
        scanner.feed(chunk)
        cleaned = "".join(self._sink.parts)
        self._sink.parts = []
        return cleaned


def clean_markdown(raw: str) -> str:
    """Markdown source without sequences or controls (line endings kept)."""
    return MarkdownCleaner().feed(raw)
