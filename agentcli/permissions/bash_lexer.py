"""Split a shell command line into the simple commands it would run.

A rule such as `Bash(npm test:*)` must judge every command a line runs, not
just the first: `npm test; rm -rf ~` is two commands. This is a small,
quote-aware scanner (not a full shell parser) that errs towards "unsafe":

- parts are separated by `&&`, `||`, `;`, `|`, `|&`, `&` and newlines;
- `$(...)`, backticks and `<(...)` / `>(...)` mark the part as substituting,
  and their text is kept so deny rules can look inside;
- redirections are collected with their targets, so a caller can check where
  output goes;
- anything it does not understand (subshell parentheses, here-documents, a
  newline inside quotes, an unterminated quote) marks the part unsafe.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_FD_DUP = re.compile(r"^&?(\d+|-)$")


@dataclass
class Part:
    """One simple command of a command line."""

    words: list[str] = field(default_factory=list)
    redirects: list[tuple[str, str]] = field(default_factory=list)  # (operator, target)
    substitution: bool = False  # $(...), `...`, <(...), >(...)
    unsafe: bool = False  # syntax we do not model: never matches an allow rule
    raw: str = ""


@dataclass
class ParsedCommand:
    parts: list[Part]
    inner: list[str]  # the text of every substitution, for deny rules
    complete: bool  # False: unterminated quote or substitution


class _Scanner:
    def __init__(self, text: str) -> None:
        self.text = text
        self.i = 0
        self.parts: list[Part] = []
        self.inner: list[str] = []
        self.complete = True
        self.part = Part()
        self.part_start = 0
        self.word: list[str] | None = None
        self.pending_redirect: str | None = None

    # -- words and parts ------------------------------------------------------

    def _word_char(self, text: str) -> None:
        if self.word is None:
            self.word = []
        self.word.append(text)

    def _end_word(self) -> None:
        if self.word is None:
            return
        word = "".join(self.word)
        self.word = None
        if self.pending_redirect is not None:
            self.part.redirects.append((self.pending_redirect, word))
            self.pending_redirect = None
        else:
            self.part.words.append(word)

    def _end_part(self, end: int) -> None:
        self._end_word()
        if self.pending_redirect is not None:
            self.part.unsafe = True  # `cmd >` with no target
            self.pending_redirect = None
        self.part.raw = self.text[self.part_start : end].strip()
        if self.part.words or self.part.redirects or self.part.raw:
            self.parts.append(self.part)
        self.part = Part()

    # -- scanning -------------------------------------------------------------

    def run(self) -> ParsedCommand:
        text, n = self.text, len(self.text)
        while self.i < n:
            c = text[self.i]
            nxt = text[self.i + 1] if self.i + 1 < n else ""
            if c == "\\":
                if nxt == "\n":  # line continuation
                    self.i += 2
                    continue
                if nxt:
                    self._word_char(nxt)
                self.i += 2
                continue
            if c == "'":
                end = text.find("'", self.i + 1)
                if end < 0:
                    self.complete = False
                    self.part.unsafe = True
                    self._word_char(text[self.i + 1 :])
                    self.i = n
                    continue
                chunk = text[self.i + 1 : end]
                if "\n" in chunk:
                    self.part.unsafe = True
                self._word_char(chunk)
                self.i = end + 1
                continue
            if c == '"':
                self._double_quoted()
                continue
            if c == "`" or (c == "$" and nxt == "("):
                self._substitution()
                continue
            if c in " \t\r":
                self._end_word()
                self.i += 1
                continue
            if c == "#" and self.word is None:
                end = text.find("\n", self.i)
                self.i = n if end < 0 else end
                continue
            if c == "\n" or c == ";":
                self._end_part(self.i)
                self.i += 1
                self.part_start = self.i
                continue
            if c == "|" or (c == "&" and nxt != ">"):
                width = 2 if nxt in ("|", "&") and (c == nxt or (c == "|" and nxt == "&")) else 1
                self._end_part(self.i)
                self.i += width
                self.part_start = self.i
                continue
            if c in "<>" or (c == "&" and nxt == ">"):
                self._redirect()
                continue
            if c in "()":
                self.part.unsafe = True  # subshells, function definitions
                self._end_word()
                self.i += 1
                continue
            self._word_char(c)
            self.i += 1
        self._end_part(n)
        return ParsedCommand(self.parts, self.inner, self.complete)

    def _double_quoted(self) -> None:
        text, n = self.text, len(self.text)
        self.i += 1
        self._word_char("")  # "" is still a word
        while self.i < n:
            c = text[self.i]
            if c == '"':
                self.i += 1
                return
            if c == "\\" and self.i + 1 < n and text[self.i + 1] in '"\\$`\n':
                if text[self.i + 1] != "\n":
                    self._word_char(text[self.i + 1])
                self.i += 2
                continue
            if c == "`" or (c == "$" and text[self.i + 1 : self.i + 2] == "("):
                self._substitution()
                continue
            if c == "\n":
                self.part.unsafe = True
            self._word_char(c)
            self.i += 1
        self.complete = False
        self.part.unsafe = True

    def _substitution(self) -> None:
        """Skip `$(...)` or a backtick span, keeping its text; nesting-aware for `$(`."""
        text, n = self.text, len(self.text)
        self.part.substitution = True
        if text[self.i] == "`":
            end = self.i + 1
            while end < n and text[end] != "`":
                end += 2 if text[end] == "\\" else 1
            self.inner.append(text[self.i + 1 : min(end, n)])
            self._word_char(text[self.i : end + 1])
            if end >= n:
                self.complete = False
            self.i = end + 1
            return
        start = self.i
        end = _matching_paren(text, self.i + 1)
        if end < 0:
            self.complete = False
            self.inner.append(text[self.i + 2 :])
            self._word_char(text[self.i :])
            self.i = n
            return
        body = text[start + 2 : end]
        self.inner.append(body[1:-1] if body.startswith("(") and body.endswith(")") else body)
        self._word_char(text[start : end + 1])
        self.i = end + 1

    def _redirect(self) -> None:
        text = self.text
        # A word made only of digits right before `>` is a file descriptor (2>).
        if self.word is not None and "".join(self.word).isdigit():
            self.word = None
        else:
            self._end_word()
        match = re.compile(r"&>>|&>|<<<|<<-|<<|<>|<&|>&|>>|>\||<\(|>\(|<|>").match(text, self.i)
        assert match is not None
        op = match.group(0)
        self.i = match.end()
        if op in ("<(", ">("):
            self.i -= 1
            self.part.substitution = True
            end = _matching_paren(text, self.i)
            self.inner.append(text[self.i + 1 : end if end >= 0 else len(text)])
            if end < 0:
                self.complete = False
                self.i = len(text)
            else:
                self.i = end + 1
            return
        if op.startswith("<<"):
            self.part.unsafe = True  # here-documents and here-strings feed text to the command
        self.pending_redirect = op


def _matching_paren(text: str, open_index: int) -> int:
    """Index of the `)` closing the `(` at open_index, skipping quoted text; -1 if none."""
    depth, i, n = 0, open_index, len(text)
    quote: str | None = None
    while i < n:
        c = text[i]
        if quote:
            if c == "\\" and quote == '"':
                i += 2
                continue
            if c == quote:
                quote = None
        elif c == "\\":
            i += 2
            continue
        elif c in "'\"":
            quote = c
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return -1


def parse_command(command: str) -> ParsedCommand:
    """The simple commands of `command`, with what makes each one risky."""
    return _Scanner(command).run()


def is_fd_duplication(op: str, target: str) -> bool:
    """`2>&1`, `>&2`, `<&0`, `>&-`: no file is named."""
    return (op in (">&", "<&") and bool(_FD_DUP.match(target))) or (
        op in (">", ">>", "<") and target.startswith("&") and bool(_FD_DUP.match(target))
    )
