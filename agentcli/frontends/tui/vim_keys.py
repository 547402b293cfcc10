"""Vim keys for the prompt: insert and normal modes, the usual motions and edits.

`/vim` toggles them, `"editorMode": "vim"` in settings starts with them on, as in
Claude Code. The prompt starts in insert mode (typing works as ever); Esc goes
to normal mode, where keys move and edit instead of typing:

- motions: h j k l, w b e, 0 ^ $, gg G (a count: `3w`, `2j`, `5G`);
- edits: x, dd D, cc C, dw cw (and d/c/y with any motion above), yy p P, u;
  a count before or after the operator (`2dw`, `d2w`, `2d3w` is six words);
- back to insert: i a I A o O (and c...).

Enter sends in either mode. Keys the app uses keep their meaning in both:
Ctrl+C, Ctrl+D, Shift+Tab, PageUp/PageDown, the arrows (and j/k, which are the
arrows of normal mode: on the first or last line they walk the prompt history,
as Up/Down do). Esc in normal mode goes on to the app, so Esc interrupts a
turn and Esc Esc on an empty prompt opens the rewind, as without vim keys; in
insert mode it also goes on to the app after switching to normal mode.

This module only decides: `VimKeys.key()` takes a key and the prompt's text and
cursor (an offset) and says what to do (an edit, where the cursor goes, the
mode, an undo, a history step, or "not mine": the prompt's own handling). The
prompt widget applies it, so undo keeps working on vim's edits as on typing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

Mode = Literal["insert", "normal"]
OPERATORS = frozenset("dcy")
MOTIONS = frozenset("hjklwbe0^$G")
MAX_COUNT = 10_000
_PENDING = re.compile(r"(\d*)([dcyg]?)(\d*)")  # a count, an operator, a count (`2d3w`)


@dataclass(frozen=True)
class Edit:
    """Replace text[start:end] with `text`."""

    start: int
    end: int
    text: str


@dataclass(frozen=True)
class Outcome:
    edit: Edit | None = None
    cursor: int | None = None
    undo: int = 0  # how many undo steps
    arrow: str = ""  # "up" / "down": as the prompt's own arrow key (history at the edges)
    passes_on: bool = False  # the prompt's own handling (and then the app's) has the key too


MINE = Outcome()
NOT_MINE = Outcome(passes_on=True)


def _line_start(text: str, pos: int) -> int:
    return text.rfind("\n", 0, pos) + 1


def _line_end(text: str, pos: int) -> int:
    end = text.find("\n", pos)
    return len(text) if end < 0 else end


def _last_char(text: str, pos: int) -> int:
    """The normal-mode cursor's furthest place on pos's line (never on the newline)."""
    start, end = _line_start(text, pos), _line_end(text, pos)
    return max(start, end - 1)


def _first_non_blank(text: str, pos: int) -> int:
    at, end = _line_start(text, pos), _line_end(text, pos)
    while at < end and text[at] in " \t":
        at += 1
    return min(at, _last_char(text, at))


def _kind(char: str) -> int:
    if char.isspace():
        return 0
    return 1 if char.isalnum() or char == "_" else 2


def _word_forward(text: str, pos: int) -> int:
    """`w`: the start of the next word (len(text) past the last)."""
    if pos >= len(text):
        return len(text)
    kind = _kind(text[pos])
    if kind:
        while pos < len(text) and _kind(text[pos]) == kind:
            pos += 1
    while pos < len(text) and _kind(text[pos]) == 0:
        pos += 1
    return pos


def _word_end(text: str, pos: int) -> int:
    """`e`: the last character of this word, or of the next when already there."""
    pos += 1
    while pos < len(text) and _kind(text[pos]) == 0:
        pos += 1
    if pos >= len(text):
        return max(0, len(text) - 1)
    kind = _kind(text[pos])
    while pos + 1 < len(text) and _kind(text[pos + 1]) == kind:
        pos += 1
    return pos


def _word_back(text: str, pos: int) -> int:
    """`b`: the start of this word, or of the one before when already there."""
    pos -= 1
    while pos > 0 and _kind(text[pos]) == 0:
        pos -= 1
    if pos <= 0:
        return 0
    kind = _kind(text[pos])
    while pos > 0 and _kind(text[pos - 1]) == kind:
        pos -= 1
    return pos


def _line_offsets(text: str) -> list[int]:
    starts = [0]
    starts.extend(i + 1 for i, char in enumerate(text) if char == "\n")
    return starts


def _to_line(text: str, line: int, column: int | None) -> int:
    """The offset of `column` on line `line` (clamped); None: its first non-blank."""
    starts = _line_offsets(text)
    start = starts[max(0, min(line, len(starts) - 1))]
    if column is None:
        return _first_non_blank(text, start)
    return min(start + column, _last_char(text, start))


def _line_of(text: str, pos: int) -> int:
    return text.count("\n", 0, pos)


class VimKeys:
    """The vim state of one prompt: its mode, a count or operator being typed, the
    register of the last delete or yank."""

    def __init__(self) -> None:
        self.mode: Mode = "insert"
        self.pending = ""  # count digits, an operator, a `g`
        self.register = ""
        self.linewise = False  # the register holds whole lines (dd, yy)

    @property
    def indicator(self) -> str:
        return "-- INSERT --" if self.mode == "insert" else "-- NORMAL --"

    def key(self, key: str, char: str | None, text: str, pos: int) -> Outcome:
        """What `key` (its printable `char`, if any) does to `text` with the cursor at
        `pos`."""
        if self.mode == "insert":
            if key != "escape":
                return NOT_MINE
            self.mode = "normal"
            back = pos - 1 if pos > _line_start(text, pos) else pos
            return Outcome(cursor=back, passes_on=True)
        if key == "escape":
            self.pending = ""
            return NOT_MINE
        if key in ("space", "backspace") and not self.pending:  # as l and h
            return self._command("l" if key == "space" else "h", 0, text, pos)
        if not char or not char.isprintable():
            self.pending = ""
            return NOT_MINE  # Enter, arrows, Ctrl+ keys, PageUp...: as without vim
        return self._normal(char, text, pos)

    # -- normal mode ----------------------------------------------------------------------

    def _normal(self, char: str, text: str, pos: int) -> Outcome:
        pending = self.pending
        parts = _PENDING.fullmatch(pending)
        before, operator, after = parts.groups() if parts else ("", "", "")
        if char.isdigit() and (char != "0" or (after if operator else before)):
            if len(pending) < 12:
                self.pending = pending + char
            return MINE
        count = min(int(before or 1) * int(after or 1), MAX_COUNT) if before or after else 0
        self.pending = ""
        if operator == "g":  # gg: the first line, or line N of Ngg
            if char != "g":
                return MINE
            return Outcome(cursor=_to_line(text, count - 1 if count else 0, None))
        if operator:
            return self._operate(operator, char, count, text, pos)
        if char in OPERATORS or char == "g":
            self.pending = pending + char
            return MINE
        return self._command(char, count, text, pos)

    def _command(self, char: str, count: int, text: str, pos: int) -> Outcome:
        times = max(count, 1)
        start, end = _line_start(text, pos), _line_end(text, pos)
        if char in "jk" and times == 1:  # the arrow: the history on the first/last line
            return Outcome(arrow="down" if char == "j" else "up")
        if char in MOTIONS:
            return Outcome(cursor=self._motion(char, count, text, pos))
        if char == "x":
            if start == end:
                return MINE
            cut = min(pos + times, end)
            self._keep(text[pos:cut], linewise=False)
            rest = text[:pos] + text[cut:]
            return Outcome(edit=Edit(pos, cut, ""), cursor=min(pos, _last_char(rest, pos)))
        if char == "D":
            return self._operate("d", "$", count, text, pos)
        if char == "C":
            return self._operate("c", "$", count, text, pos)
        if char in "pP":
            return self._put(char == "p", times, text, pos)
        if char == "u":
            return Outcome(undo=times)
        return self._insert_command(char, text, pos)

    def _insert_command(self, char: str, text: str, pos: int) -> Outcome:
        start, end = _line_start(text, pos), _line_end(text, pos)
        places = {
            "i": pos,
            "a": min(pos + 1, end),
            "I": _first_non_blank(text, pos) if start < end else start,
            "A": end,
        }
        if char in places:
            self.mode = "insert"
            return Outcome(cursor=places[char])
        if char == "o":
            self.mode = "insert"
            return Outcome(edit=Edit(end, end, "\n"), cursor=end + 1)
        if char == "O":
            self.mode = "insert"
            return Outcome(edit=Edit(start, start, "\n"), cursor=start)
        return MINE  # any other key types nothing in normal mode

    def _lines(self, text: str, pos: int, by: int) -> int:
        line = _line_of(text, pos)
        return _to_line(text, line + by, pos - _line_start(text, pos))

    def _motion(self, char: str, count: int, text: str, pos: int) -> int:
        """Where a motion takes the cursor (may be len(text) for `w` past the end)."""
        times = max(count, 1)
        start = _line_start(text, pos)
        if char == "h":
            return max(start, pos - times)
        if char == "l":
            return min(pos + times, _last_char(text, pos))
        if char in "jk":
            return self._lines(text, pos, times if char == "j" else -times)
        if char == "0":
            return start
        if char == "^":
            return _first_non_blank(text, pos)
        if char == "$":
            return _last_char(text, pos)
        if char == "G":
            return _to_line(text, count - 1 if count else len(_line_offsets(text)) - 1, None)
        step = {"w": _word_forward, "b": _word_back, "e": _word_end}[char]
        for _ in range(times):
            pos = step(text, pos)
        return pos

    # -- operators --------------------------------------------------------------------

    def _operate(self, operator: str, char: str, count: int, text: str, pos: int) -> Outcome:
        times = max(count, 1)
        if char == operator:  # dd cc yy: whole lines
            return self._on_lines(operator, times, text, pos)
        if char not in MOTIONS or (char in "jk" and operator == "c"):
            return MINE
        start, end = self._span(operator, char, count, text, pos)
        if char in "jkG":
            return self._on_lines_between(operator, text, start, end)
        self._keep(text[start:end], linewise=False)
        if operator == "y":
            return Outcome(cursor=start)
        if operator == "c":
            self.mode = "insert"
            return Outcome(edit=Edit(start, end, ""), cursor=start)
        rest = text[:start] + text[end:]
        return Outcome(edit=Edit(start, end, ""), cursor=min(start, _last_char(rest, start)))

    def _span(self, operator: str, char: str, count: int, text: str, pos: int) -> tuple[int, int]:
        """The characters an operator with this motion covers, [start, end)."""
        times = max(count, 1)
        if char == "$":
            return pos, _line_end(text, pos)
        if char == "w" and operator == "c" and pos < len(text) and _kind(text[pos]):
            end = _word_end_at(text, pos)  # `cw` on a word is `ce` (vim's own exception)
            for _ in range(times - 1):
                end = _word_end(text, end)
            return pos, min(end + 1, len(text))
        if char == "e":
            end = pos
            for _ in range(times):
                end = _word_end(text, end)
            return pos, min(end + 1, len(text))
        target = self._motion(char, count, text, pos)
        if char == "w":  # never past the end of the line it started on
            target = min(target, _line_end(text, pos))
        if char == "l":
            target = min(pos + max(count, 1), _line_end(text, pos))
        return (target, pos) if target < pos else (pos, target)

    def _on_lines(self, operator: str, times: int, text: str, pos: int) -> Outcome:
        start, end = _line_start(text, pos), _line_end(text, pos)
        for _ in range(times - 1):
            if end >= len(text):
                break
            end = _line_end(text, end + 1)
        return self._on_lines_between(operator, text, start, end)

    def _on_lines_between(self, operator: str, text: str, first: int, last: int) -> Outcome:
        """d/c/y on the whole lines from the one of `first` to the one of `last`."""
        start, end = _line_start(text, first), _line_end(text, last)
        self._keep(text[start:end] + "\n", linewise=True)
        if operator == "y":
            return Outcome(cursor=min(first, last))
        if operator == "c":
            self.mode = "insert"
            return Outcome(edit=Edit(start, end, ""), cursor=start)
        # The lines and the newline after them; the last lines, the newline before them.
        cut = Edit(start, end + 1, "") if end < len(text) else Edit(max(0, start - 1), end, "")
        rest = text[: cut.start] + text[cut.end :]
        return Outcome(edit=cut, cursor=_first_non_blank(rest, min(cut.start, len(rest))))

    def _keep(self, cut: str, *, linewise: bool) -> None:
        if cut:
            self.register, self.linewise = cut, linewise

    def _put(self, after: bool, times: int, text: str, pos: int) -> Outcome:
        if not self.register:
            return MINE
        if self.linewise:
            lines = self.register * times
            if after:
                end = _line_end(text, pos)
                return Outcome(edit=Edit(end, end, "\n" + lines[:-1]), cursor=end + 1)
            start = _line_start(text, pos)
            return Outcome(edit=Edit(start, start, lines), cursor=start)
        chunk = self.register * times
        at = min(pos + 1, _line_end(text, pos)) if after else pos
        return Outcome(edit=Edit(at, at, chunk), cursor=at + len(chunk) - 1)


def _word_end_at(text: str, pos: int) -> int:
    """The last character of the word at pos (pos itself when it is the word's last)."""
    kind = _kind(text[pos])
    while pos + 1 < len(text) and _kind(text[pos + 1]) == kind:
        pos += 1
    return pos
