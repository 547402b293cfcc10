"""A custom command's body, filled in: the prompt the model receives.

The body is the command file's own text; the arguments are the person's (or
a program's) words, and they are data. So the body is read first, into its
own `` !`cmd` `` lines (only where the `!` starts the text or follows a
space) and the prose around them, and only then is anything filled in:

1. arguments, in the prose only and in one pass (an argument's own
   `$ARGUMENTS` or `$1` stays as typed): `$ARGUMENTS` is the text after the
   command, as typed; `$0`, `$1`… (and `$ARGUMENTS[0]`…) are its words, split
   shell-style (quotes group words) and counted from 0; a missing one is
   empty. A body whose prose has no placeholder gets the text appended as
   `ARGUMENTS: …`.
2. each of the body's own `` !`cmd` `` is replaced by the command's output.
   It runs exactly as the file wrote it: no argument is put into it (a `$1`
   there is the shell's own, as in `awk '{print $1}'`), so no text from the
   arguments ever reaches a shell, whatever it holds (`` !`…` ``, `$(…)`,
   backticks, a newline and a `!` line). Running one is the caller's
   business (`Runner.shell`): it goes through the permission gate like the
   Bash tool (commands/command_run.py).
3. `@path`: each file the filled prose mentions (the file's own `@`, or one
   in the arguments, as in a prompt typed in the app) is attached
   (`Runner.include`: Read's permission, then the same reading as a typed
   attachment); a command's output is never scanned for them.

Anything that stops the prompt being made raises `ExpansionError`, whose
message is for the person; nothing is sent then.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Awaitable
from dataclasses import dataclass, field
from typing import Protocol

from agentcli.commands.attachments import find_mentions
from agentcli.core.messages import Block

Blocks = list[Block]

# One pass over the prose: `$ARGUMENTS[0]` before `$ARGUMENTS`, `$1` but not `$12`'s `$1`.
_PLACEHOLDER = re.compile(r"\$ARGUMENTS\[(\d+)\]|\$ARGUMENTS|\$(\d+)(?!\d)")
_ALL = "$ARGUMENTS"
SHELL = re.compile(r"(?:^|(?<=\s))!`([^`\n]+)`")


class ExpansionError(Exception):
    """The command's prompt could not be made; the message says why."""


class Runner(Protocol):
    """What running a command's body needs from its front end and engine."""

    def shell(self, command: str) -> Awaitable[str]:
        """The output of `command`, once the permission gate let it run;
        raises ExpansionError when it did not."""
        ...

    def include(self, mention: str) -> Awaitable[tuple[Blocks, list[str]]]:
        """The file `@mention` names, as content blocks, and notes for the person;
        raises ExpansionError when Read may not read it."""
        ...


@dataclass
class Expansion:
    """The content of the person's turn (attached files first, then the prompt),
    and notes for the person (what was attached, what ran)."""

    blocks: Blocks
    notes: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class _Piece:
    """A stretch of the body: prose (to fill in), or one of its own `!` commands."""

    text: str
    command: str | None = None  # set for a `!` line: what runs


def _pieces(body: str) -> list[_Piece]:
    """The body's own `!` commands and the prose between them, before any filling in."""
    pieces: list[_Piece] = []
    last = 0
    for match in SHELL.finditer(body):
        pieces += [_Piece(body[last : match.start()]), _Piece(match.group(0), match.group(1))]
        last = match.end()
    return [*pieces, _Piece(body[last:])]


def _filled(pieces: list[_Piece], arguments: str) -> list[_Piece]:
    """Step 1: the prose's placeholders replaced by the arguments, in one pass."""
    prose = [piece.text for piece in pieces if piece.command is None]
    found = [match for text in prose for match in _PLACEHOLDER.finditer(text)]
    if not found:
        return [*pieces, _Piece(f"\n\nARGUMENTS: {arguments}")] if arguments else pieces
    positional = any(match.group(0) != _ALL for match in found)
    words = split_words(arguments) if positional else []

    def value(match: re.Match[str]) -> str:
        if match.group(0) == _ALL:
            return arguments
        index = int(match.group(1) or match.group(2))
        return words[index] if index < len(words) else ""

    return [
        piece if piece.command is not None else _Piece(_PLACEHOLDER.sub(value, piece.text))
        for piece in pieces
    ]


def fill_arguments(body: str, arguments: str) -> str:
    """The body with its prose filled in (step 1); its `!` lines as written."""
    return "".join(piece.text for piece in _filled(_pieces(body), arguments))


def split_words(arguments: str) -> list[str]:
    try:
        return shlex.split(arguments)
    except ValueError as exc:  # an unclosed quote
        raise ExpansionError(f"could not read the arguments: {exc}") from None


async def expand(body: str, arguments: str, runner: Runner) -> Expansion:
    """The prompt for `body` run with `arguments` (steps 1 to 3)."""
    pieces = _filled(_pieces(body), arguments)
    prose = " ".join(" " if piece.command is not None else piece.text for piece in pieces)
    mentions = dict.fromkeys(find_mentions(prose))  # not in the commands' output
    notes: list[str] = []
    parts: list[str] = []
    for piece in pieces:
        if piece.command is None:
            parts.append(piece.text)
            continue
        parts.append((await runner.shell(piece.command)).rstrip("\n"))
        notes.append(f"Ran !`{piece.command}`")
    text = "".join(parts)
    blocks: Blocks = []
    for mention in mentions:
        attached, more = await runner.include(mention)
        blocks += attached
        notes += more
    return Expansion([*blocks, {"type": "text", "text": text or "(empty command)"}], notes)
