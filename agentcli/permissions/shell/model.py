"""What the walker finds: simple commands with their words, redirects and folders.

A `Command` is one simple command as bash will run it: its expanded
arguments (`None` where a word is not known before the line runs), the
words they came from (for the variables they expand), its redirects, the
folders it may run in, and, for a wrapper, the commands it runs (`inner`).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from agentcli.permissions.shell.words import Word
from agentcli.permissions.shell.wrappers import Arg, Unwrapped

_WRITE_OPS = frozenset({">", ">>", ">|", "&>", "&>>", ">&"})


@dataclass(frozen=True, slots=True)
class Redirect:
    op: str
    target: Word | None  # None: a file descriptor is duplicated or closed, or text is fed
    cwds: tuple[Path, ...] | None
    body: Word | None = None  # here-document / here-string text that expands

    @property
    def writes(self) -> bool:
        return self.op in _WRITE_OPS

    @property
    def reads(self) -> bool:
        return self.op == "<"


@dataclass(slots=True)
class Command:
    """One simple command as bash will run it."""

    argv: tuple[Arg, ...]  # None: words not known before the line runs
    words: tuple[Word, ...]
    redirects: tuple[Redirect, ...]
    assignments: tuple[tuple[str, Word], ...]
    cwds: tuple[Path, ...] | None
    text: str
    unwrapped: Unwrapped | None = None
    inner: list[Command] = field(default_factory=list)  # what a wrapper runs
    via: str = ""  # the wrapper this command was found behind
    exact: bool = True  # the wrapper's options were all understood
    lands: tuple[Path, ...] | None = ()  # cd/pushd: the folders it moves to (None: unknown)

    @property
    def name(self) -> Arg:
        return self.argv[0] if self.argv else ""

    @property
    def dynamic_name(self) -> bool:
        return bool(self.argv) and self.argv[0] is None


@dataclass(slots=True)
class Walk:
    """The result: commands in run order, and what was not understood."""

    commands: list[Command] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    dynamic: list[str] = field(default_factory=list)  # commands that cannot be known at all
    # Programs that run code the line does not show (`bash script.sh`): understood as
    # commands, but a deny rule cannot tell what they run.
    opaque: list[str] = field(default_factory=list)

    def all_commands(self) -> Iterator[Command]:
        stack = list(reversed(self.commands))
        while stack:
            command = stack.pop()
            yield command
            stack.extend(reversed(command.inner))
