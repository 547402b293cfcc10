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
because both use it: the Textual app and headless `-p`. It needs rich (for
`Text` and `Style`), never Textual; headless imports it only when a terminal
is there to protect.

Columns are counted in characters, not cells: a `\\r` overwrite over wide
(CJK, emoji) characters may differ from a terminal's by a cell or two, which
changes what is shown, never what is safe.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache
from itertools import accumulate, groupby
from operator import itemgetter
from typing import Protocol

from rich.ansi import SGR_STYLE_MAP
from rich.color import Color
from rich.style import Style
from rich.text import Span, Text

ESC = "\x1b"
# A whole SGR sequence (colours, bold...); group 1 is its parameters.
_SGR = re.compile(r"\x1b\[([0-9;:]{0,128})m")
# What the scanner must look at one by one: anything but text, newlines and
# whole SGRs. What lies between two of those is cut by `_SGR.split` and
# handed to the sink in bulk (for most output, that is the whole chunk).
_CONTROL_BUT_NEWLINE_ESC = re.compile(r"[\x00-\x08\x0b-\x1a\x1c-\x1f\x7f-\x9f]")
_ESC_NOT_SGR = re.compile(r"\x1b(?!\[[0-9;:]{0,128}m)")
# Every control character but newline and tab: text without any is safe as it is.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
# What markdown source must not keep: the same, but carriage return too is the parser's.
_MARKDOWN_SPECIAL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
# CSI: parameters and intermediates, then a final byte (absent: cut or malformed).
_CSI = re.compile(r"(?:\x1b\[|\x9b)([\x20-\x3f]*)([\x40-\x7e])?")
_SGR_PARAMS = re.compile(r"[0-9;:]{0,128}")
# Other escape sequences: ESC, intermediates, a final byte (`ESC c`, `ESC 7`, `ESC ( B`).
_ESCAPE = re.compile(r"\x1b[\x20-\x2f]*([\x30-\x7e])?")
# Control strings (OSC, DCS, SOS, PM, APC) run until BEL, ST, CAN, SUB or any ESC.
_STRING_BODY = re.compile(r"[^\x07\x18\x1a\x1b\x9c]*")


def _matched(pattern: re.Pattern[str], s: str, at: int) -> re.Match[str]:
    """The match of a pattern that always matches where it is used (its start is known)."""
    match = pattern.match(s, at)
    assert match is not None, pattern.pattern
    return match


_STRING_INTRODUCERS = frozenset("]P_^X")
_C1_STRINGS = frozenset("\x90\x98\x9d\x9e\x9f")
# A held-back sequence longer than this is not a real one: it is dropped.
MAX_HELD = 1024


class _Sink(Protocol):
    def simple(self, pieces: list[str]) -> None:
        """Text (with newlines) and SGR parameters alternating, text first and last."""

    def text(self, run: str) -> None: ...
    def carriage_return(self) -> None: ...
    def backspace(self) -> None: ...
    def sgr(self, params: str) -> None: ...


class _Scanner:
    """Splits text into what is shown and the few controls that matter.

    Text with its newlines and whole SGRs goes to the sink in bulk (`simple`);
    a carriage return, a backspace and an SGR met alone go one by one; all
    else is consumed and dropped. Between chunks it remembers an incomplete
    sequence (held back, at most `MAX_HELD` characters) and whether it is
    inside a control string.
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
        self._scan(s, pos, final)
        if final:
            self._held = ""
            self._in_string = False

    def _scan(self, s: str, pos: int, final: bool) -> None:
        sink, end = self._sink, len(s)
        control = escape = -1  # where the next of each is, once looked for
        while pos < end:
            # The next thing to look at one by one: a control other than
            # newline and ESC, or an ESC that does not start a whole SGR.
            # (Two plain searches are much faster than one with both.)
            if control < pos:
                found = _CONTROL_BUT_NEWLINE_ESC.search(s, pos)
                control = end if found is None else found.start()
            if escape < pos:
                found = _ESC_NOT_SGR.search(s, pos)
                escape = end if found is None else found.start()
            stop = min(control, escape)
            if stop > pos:  # text, newlines and whole SGRs: handed over in bulk
                simple = s[pos:stop]
                sink.simple(_SGR.split(simple) if ESC in simple else [simple])
            if stop == end:
                return
            char = s[stop]
            pos = stop + 1
            if char == "\r":
                sink.carriage_return()
            elif char == "\b":
                sink.backspace()
            elif char == ESC or char >= "\x80":
                pos = self._sequence(s, stop, final)
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
            match = _matched(_ESCAPE, s, at)
            if match.group(1) is None and match.end() == len(s):
                return self._hold(s, at, final)
            return match.end()  # a whole sequence, or a malformed start: dropped
        return at + 1  # another C1 control

    def _csi(self, s: str, at: int, final: bool) -> int:
        match = _matched(_CSI, s, at)
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
        stop = _matched(_STRING_BODY, s, start).end()
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
        red, green, blue = (next(codes, None) for _ in range(3))
        if red is not None and green is not None and blue is not None:
            return Color.from_rgb(red, green, blue)
    return None


# -- lines as a terminal shows them -------------------------------------------

Run = tuple[str, Style | None]
Line = list[Run]
"""One shown line: its text in runs of one style each (no empty run)."""


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
        self._runs: Line = []
        self._cells: list[str] | None = None
        self._cell_styles: list[Style | None] = []
        self._col = 0

    def simple(self, pieces: list[str]) -> None:
        if self._cells is not None:
            pieces = self._end_overwritten_line(pieces)
            if not pieces:
                return
        texts = pieces[::2]
        if self.styled and len(pieces) > 1:
            # (Not `initial=`: accumulate takes None there for "no initial value".)
            styles = list(accumulate([self.style, *pieces[1::2]], apply_sgr))
        else:
            styles = [self.style] * len(texts)
        runs, done = self._runs, self.done
        for text, style in zip(texts, styles, strict=True):
            if "\n" in text:
                first, *lines, rest = text.split("\n")
                if first:
                    runs.append((first, style))
                done.append(runs)
                done.extend([[(line, style)] if line else [] for line in lines])
                runs = [(rest, style)] if rest else []
            elif text:
                runs.append((text, style))
        self._runs, self.style = runs, styles[-1]

    def _end_overwritten_line(self, pieces: list[str]) -> list[str]:
        """Write into the cells up to the first newline; the pieces after it."""
        for index, piece in enumerate(pieces):
            if index % 2:
                self.sgr(piece)
            elif "\n" in piece:
                head, tail = piece.split("\n", 1)
                if head:
                    self.text(head)
                self._end_line()
                return [tail, *pieces[index + 1 :]]
            elif piece:
                self.text(piece)
        return []

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

    def _end_line(self) -> None:
        if self._cells is None:
            self.done.append(self._runs)
        else:
            self.done.append(self.current())
            self._cells = None
            self._cell_styles = []
        self._runs = []

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
        """The line being written, as it shows now (a copy)."""
        cells = self._cells
        if cells is None:
            return list(self._runs)
        if not self.styled:
            return [("".join(cells), None)] if cells else []
        # Cells of one run share one Style object: groupby compares by identity first.
        return [
            ("".join(map(itemgetter(0), group)), style)
            for style, group in groupby(zip(cells, self._cell_styles, strict=True), itemgetter(1))
        ]

    def _to_cells(self) -> None:
        if self._cells is not None:
            return
        self._cells = list(line_plain(self._runs))
        styles: list[Style | None] = []
        if self.styled:
            for run, style in self._runs:
                styles.extend([style] * len(run))
        self._cell_styles = styles
        self._col = len(self._cells)
        self._runs = []


class TerminalDecoder:
    """Text in chunks -> safe lines, as a terminal would show them.

    `feed()` returns the lines finished by the chunk; `partial` is the line
    still being written. State (colour, a cut sequence, a control string that
    is still open) carries from one chunk to the next. A line is a list of
    runs, cheap to keep; `lines_text()` makes the ones shown into a rich Text.
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


def line_plain(line: Line) -> str:
    """A line's text."""
    return "".join(run for run, _ in line)


def lines_text(lines: Iterable[Line], style: str | Style = "") -> Text:
    """Lines joined by newlines into one rich Text, with their styles."""
    parts: list[str] = []
    spans: list[Span] = []
    offset = 0
    for line in lines:
        for run, run_style in line:
            end = offset + len(run)
            if run_style is not None:
                spans.append(Span(offset, end, run_style))
            parts.append(run)
            offset = end
        parts.append("\n")
        offset += 1
    if parts:
        parts.pop()
    return Text("".join(parts), style=style, spans=spans)


def _decode(raw: str, *, styled: bool) -> list[Line]:
    decoder = TerminalDecoder(styled=styled)
    lines = decoder.feed(raw)
    lines.extend(decoder.close())
    lines.append(decoder.partial)
    return lines


def terminal_text(raw: str, style: str | Style = "") -> Text:
    """Untrusted text as a rich Text: SGR colours kept as styles, other controls dropped."""
    if _CONTROL.search(raw) is None:
        return Text(raw, style=style)
    return lines_text(_decode(raw, styled=True), style)


def terminal_plain(raw: str) -> str:
    """Untrusted text as plain text: no escape, no control but newline and tab."""
    if _CONTROL.search(raw) is None:
        return raw
    return "\n".join(line_plain(line) for line in _decode(raw, styled=False))


# -- text to be read exactly --------------------------------------------------


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

    def simple(self, pieces: list[str]) -> None:
        self.parts.extend(pieces[::2])

    def text(self, run: str) -> None:
        self.parts.append(run)

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
