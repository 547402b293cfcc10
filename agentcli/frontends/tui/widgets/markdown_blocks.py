"""Split streamed markdown into top-level blocks, incrementally.

A streamed answer only ever grows at its end, so everything before the last
top-level block is settled: re-parsing it on every chunk would make each chunk
cost O(message). `BlockSplitter` reads the text line by line as it arrives and
cuts it where a new top-level block has clearly started (after a blank line,
before a fence or ATX heading, after a fence closes or a heading line ends).
Each finished block can then be parsed and rendered once, on its own, and only
the open tail is re-parsed.

A cut is only made where parsing the pieces separately gives the same result
as parsing the whole document; when in doubt the splitter does not cut (a
longer tail costs time, never correctness). Things it keeps together:

- lists across blank lines (loose lists), while the next line is indented or
  is another list item;
- indented code across blank lines;
- fenced code until its closing fence (an unclosed fence runs to the end);
- HTML blocks of the kinds that may contain blank lines (`<pre>`, `<!--`...).

Known limit: a link reference definition (`[x]: url`) only applies to links in
its own block.

Line endings are normalised as CommonMark does (CRLF and lone CR become LF),
also when a CRLF pair is split across two chunks.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from markdown_it import MarkdownIt

_FENCE_OPEN = re.compile(r"^(?P<indent> {0,3})(?P<fence>`{3,}|~{3,})(?P<info>.*)$")
_ATX_HEADING = re.compile(r"^#{1,6}(?:[ \t]|$)")
_LIST_ITEM = re.compile(r"^ {0,3}(?:[-+*]|\d{1,9}[.)])(?:[ \t]|$)")
_HTML_SPANNING = (
    (
        re.compile(r"^ {0,3}<(?:script|pre|style|textarea)(?:[ \t>]|$)", re.I),
        re.compile(r"</(?:script|pre|style|textarea)>", re.I),
    ),
    (re.compile(r"^ {0,3}<!--"), re.compile(r"-->")),
    (re.compile(r"^ {0,3}<\?"), re.compile(r"\?>")),
    (re.compile(r"^ {0,3}<!\[CDATA\["), re.compile(r"\]\]>")),
    (re.compile(r"^ {0,3}<![A-Za-z]"), re.compile(r">")),
)

# What kind of block the first line of a block starts; decides what may
# continue it after a blank line.
_KIND_NONE = "none"  # only blank lines so far
_KIND_LIST = "list"
_KIND_INDENTED = "indented"
_KIND_HEADING = "heading"
_KIND_FENCE = "fence"
_KIND_HTML = "html"
_KIND_OTHER = "other"

# Verdicts on a planned cut.
_CUT = "cut"
_KEEP = "keep"  # no cut: the line continues the open block
_RESYNCED = "resynced"  # no cut: the line machine's state was corrected


def _indent(line: str) -> int:
    """Columns of leading whitespace, with tabs stopping every 4 columns."""
    column = 0
    for char in line:
        if char == " ":
            column += 1
        elif char == "\t":
            column += 4 - column % 4
        else:
            break
    return column


@dataclass(frozen=True)
class _Fence:
    char: str
    length: int

    def closes(self, line: str) -> bool:
        if _indent(line) > 3:
            return False
        stripped = line.strip()
        return (
            len(stripped) >= self.length
            and stripped[0] == self.char
            and stripped.strip(self.char) == ""
        )


def _opens_fence(line: str) -> _Fence | None:
    match = _FENCE_OPEN.match(line)
    if match is None:
        return None
    fence = match.group("fence")
    if fence[0] == "`" and "`" in match.group("info"):
        return None  # a backtick fence's info string may not contain backticks
    return _Fence(fence[0], len(fence))


def _kind_of(line: str) -> str:
    if line.strip() == "":
        return _KIND_NONE
    if _indent(line) >= 4:
        return _KIND_INDENTED
    if _opens_fence(line) is not None:
        return _KIND_FENCE
    stripped = line.lstrip(" ")
    if _ATX_HEADING.match(stripped):
        return _KIND_HEADING
    if _LIST_ITEM.match(line):
        return _KIND_LIST
    if stripped.startswith("<"):
        return _KIND_HTML
    return _KIND_OTHER


class BlockSplitter:
    """Cuts a growing markdown text into finished top-level blocks and a tail.

    `feed()` costs O(chunk) amortised. Finished blocks are handed out once by
    `take_finished()`; `tail` is the text after them (the open block plus any
    incomplete last line). Joined in order, finished blocks and the tail are
    the whole text (with line endings normalised).
    """

    def __init__(self) -> None:
        self._partial: list[str] = []  # pieces of the incomplete last line
        self._held_cr = False  # chunk ended in "\r": may be half of "\r\n"
        self._lines: list[str] = []  # complete lines of the open block, with "\n"
        self._kind = _KIND_NONE
        self._after_blank = False
        self._fence: _Fence | None = None
        self._fence_is_block = False  # the open fence started the open block
        self._html_end: re.Pattern[str] | None = None
        self._html_open = False  # an HTML block may be open until the next blank line
        self._list_seen = False  # a list started somewhere in the open block
        # A fence inside a container (a list item...) or HTML was seen: the line
        # machine may then be wrong about fences, so cuts are checked by a parse.
        self._risky = False
        self._finished: list[str] = []
        self._closed = False

    # -- input -----------------------------------------------------------------

    def feed(self, text: str) -> None:
        """Add a chunk of text; complete lines are classified right away."""
        if self._closed:
            raise RuntimeError("BlockSplitter.feed() after close()")
        if not text:
            return
        if self._held_cr:
            text = "\r" + text
            self._held_cr = False
        if text.endswith("\r"):
            text = text[:-1]
            self._held_cr = True
        if "\r" in text:
            text = text.replace("\r\n", "\n").replace("\r", "\n")
        if "\n" not in text:
            if text:
                self._partial.append(text)
            return
        pieces = text.split("\n")
        self._partial.append(pieces[0])
        self._line("".join(self._partial))
        for piece in pieces[1:-1]:
            self._line(piece)
        self._partial = [pieces[-1]] if pieces[-1] else []

    def close(self) -> None:
        """End of text: the open block (and any incomplete line) is finished."""
        if self._closed:
            return
        if self._held_cr:
            self._held_cr = False
            self._line("".join(self._partial))
            self._partial = []
        if self._partial:
            self._lines.append("".join(self._partial))
            self._partial = []
        self._finish_block()
        self._closed = True

    # -- output ----------------------------------------------------------------

    def take_finished(self) -> list[str]:
        """The blocks finished since the last call (each handed out once)."""
        finished = self._finished
        self._finished = []
        return finished

    @property
    def tail(self) -> str:
        """The open block and the incomplete last line: what is still changing."""
        return "".join(self._lines) + "".join(self._partial)

    @property
    def closed(self) -> bool:
        return self._closed

    # -- the line machine ------------------------------------------------------

    def _finish_block(self) -> None:
        if self._lines:
            self._finished.append("".join(self._lines))
        self._lines = []
        self._kind = _KIND_NONE
        self._after_blank = False
        self._fence = None
        self._fence_is_block = False
        self._html_end = None
        self._html_open = False
        self._list_seen = False
        self._risky = False

    def _start_block(self, line: str) -> None:
        """Cut before `line` (when that is safe) and add it to the open block."""
        if self._risky:
            verdict = self._check_cut()
            if verdict == _RESYNCED:
                self._line(line)  # now inside the fence: place the line again
                return
            if verdict == _KEEP:
                self._add(line)
                return
        self._finish_block()
        self._add(line)

    def _check_cut(self) -> str:
        """Check a cut with the real parser; on a mismatch, re-synchronise.

        The parser is asked only about the open block (parsed once per cut, so
        O(block)). A cut is wrong exactly when the block ends inside a
        top-level fence or HTML block that the next line would continue.
        """
        lines = self._lines
        tokens = _block_parser().parse("".join(lines))
        last = next((t for t in reversed(tokens) if t.level == 0 and t.map), None)
        if last is None or last.map is None:
            return _CUT
        start, end = last.map
        if last.type == "fence":
            fence = _Fence(last.markup[0], len(last.markup))
            if end - start >= 2 and fence.closes(lines[end - 1].rstrip("\n")):
                return _CUT
            # Markdown-it sees an unclosed fence from line `start`: what comes
            # before it is finished, the fence becomes the open block.
            tail = lines[start:]
            self._lines = lines[:start]
            self._finish_block()
            self._lines = tail
            self._kind = _KIND_FENCE
            self._fence = fence
            self._fence_is_block = True
            return _RESYNCED
        if last.type == "html_block" and end >= len(lines):
            # An HTML block reaching the end of the block may still be open.
            self._html_open = True
            return _KEEP
        return _CUT

    def _add(self, line: str) -> None:
        """Append a line to the open block and track fences and HTML inside it."""
        first = not self._lines or self._kind == _KIND_NONE
        if first:
            self._kind = _kind_of(line)
        elif self._kind == _KIND_HEADING:
            self._kind = _KIND_OTHER  # no longer a lone heading line
        self._lines.append(line + "\n")
        if self._html_end is not None:
            if self._html_end.search(line):
                self._html_end = None
            return
        fence = _opens_fence(line)
        if fence is not None:
            self._fence = fence
            self._fence_is_block = self._kind == _KIND_FENCE and _is_only_content(self._lines)
            if not self._fence_is_block:
                self._risky = True
            return
        if _LIST_ITEM.match(line):
            self._list_seen = True
        if _indent(line) <= 3 and line.lstrip()[:1] == "<":
            self._risky = True
            # An HTML block may have started (even inside a paragraph or list):
            # until a blank line, a fence or heading does not interrupt it.
            self._html_open = True
            # Those that may hold blank lines run to their end marker.
            for start, end in _HTML_SPANNING:
                opened = start.match(line)
                if opened is not None:
                    if not end.search(line, opened.end()):
                        self._html_end = end
                    break

    def _line(self, line: str) -> None:
        if self._fence is not None:
            self._lines.append(line + "\n")
            if self._fence.closes(line):
                self._fence = None
                if self._fence_is_block:
                    self._finish_block()
            return
        if self._html_end is not None:
            self._add(line)
            return
        if line.strip() == "":
            self._lines.append(line + "\n")
            self._html_open = False
            if self._kind != _KIND_NONE:
                self._after_blank = True
            return
        if self._kind == _KIND_NONE:
            self._add(line)
        elif self._after_blank:
            self._after_blank = False
            if self._continues_after_blank(line):
                self._add(line)
            else:
                self._start_block(line)
        elif self._kind == _KIND_HEADING or self._interrupts(line):
            self._start_block(line)
        else:
            self._add(line)

    def _continues_after_blank(self, line: str) -> bool:
        if _indent(line) >= 4:
            return True  # may continue indented code, wherever in the block it began
        if self._kind == _KIND_LIST or self._list_seen:
            return _indent(line) > 0 or _LIST_ITEM.match(line) is not None
        return False

    def _interrupts(self, line: str) -> bool:
        """Does an unindented line start a new top-level block without a blank line?"""
        if self._html_open or line[:1] in (" ", "\t"):
            return False
        return _opens_fence(line) is not None or _ATX_HEADING.match(line) is not None


@cache
def _block_parser() -> MarkdownIt:
    """The same parser as Textual's Markdown, block rules only (no inline pass)."""
    return MarkdownIt("gfm-like").disable(["inline", "linkify", "text_join"], ignoreInvalid=True)


def _is_only_content(lines: list[str]) -> bool:
    """True when the last line is the first non-blank line of the block."""
    return all(line.strip() == "" for line in lines[:-1])
