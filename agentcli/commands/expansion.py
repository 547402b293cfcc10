"""A custom command's body, filled in: the prompt the model receives.

In the order Claude Code applies them:

1. arguments: `$ARGUMENTS` is the text after the command, as typed;
   `$0`, `$1`… (and `$ARGUMENTS[0]`…) are its words, split shell-style
   (quotes group words) and counted from 0; a missing one is empty. A body
   with no placeholder gets the text appended as `ARGUMENTS: …`.
2. `` !`cmd` ``: each is replaced by the command's output. Running one is
   the caller's business (`Runner.shell`): it goes through the permission
   gate like the Bash tool (commands/command_gate.py).
3. `@path`: each file mentioned is attached as it would be when typed
   (`Runner.include`: the same checks, and Read's permission).

Anything that stops the prompt being made raises `ExpansionError`, whose
message is for the person; nothing is sent then.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Awaitable
from dataclasses import dataclass, field
from typing import Any, Protocol

from agentcli.ui.attachments import find_mentions

Blocks = list[dict[str, Any]]

_POSITIONAL = re.compile(r"\$ARGUMENTS\[(\d+)\]|\$(\d+)(?!\d)")
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


def fill_arguments(body: str, arguments: str) -> str:
    """Step 1: the placeholders replaced by the person's words."""
    positional = _POSITIONAL.search(body) is not None
    if _ALL not in body and not positional:
        return f"{body}\n\nARGUMENTS: {arguments}" if arguments else body
    words = split_words(arguments) if positional else []

    def word(match: re.Match[str]) -> str:
        index = int(match.group(1) or match.group(2))
        return words[index] if index < len(words) else ""

    return _POSITIONAL.sub(word, body).replace(_ALL, arguments)


def split_words(arguments: str) -> list[str]:
    try:
        return shlex.split(arguments)
    except ValueError as exc:  # an unclosed quote
        raise ExpansionError(f"could not read the arguments: {exc}") from None


async def expand(body: str, arguments: str, runner: Runner) -> Expansion:
    """The prompt for `body` run with `arguments` (steps 1 to 3)."""
    text = fill_arguments(body, arguments)
    mentions = dict.fromkeys(find_mentions(SHELL.sub(" ", text)))  # not in commands' output
    notes: list[str] = []
    parts: list[str] = []
    last = 0
    for match in SHELL.finditer(text):
        parts += [text[last : match.start()], (await runner.shell(match.group(1))).rstrip("\n")]
        notes.append(f"Ran !`{match.group(1)}`")
        last = match.end()
    text = "".join([*parts, text[last:]])
    blocks: Blocks = []
    for mention in mentions:
        attached, more = await runner.include(mention)
        blocks += attached
        notes += more
    return Expansion([*blocks, {"type": "text", "text": text or "(empty command)"}], notes)
