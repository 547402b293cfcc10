"""A message the app sends whose content is made when its turn starts.

What a command hands to `CommandHost.send` (commands/host.py), so it lives
beside the commands; the app's turn runner makes the content (frontends/tui/turns.py).

Most messages are the text typed (with `@` attachments read as the turn
starts). An MCP prompt command sends its prompt's messages instead: they are
fetched from the server when the turn starts, so the conversation shows the
command at once, a queued one keeps its place, and Esc stops a server that
is slow to answer like any other part of a turn. A prompt that cannot be
fetched raises `NotSent`, whose words the app shows; nothing goes to the
model then. A custom command (commands/file_commands.py) also gives a
`scope`: entered before its content is made and left when its turn ends
(the tools its file allows, its model).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from typing import Any

from agentcli.core.messages import Block

Blocks = list[Block]


class NotSent(Exception):
    """The message's content could not be made; the message says why, for the person."""


@dataclass(frozen=True)
class Prepared:
    """Shown as `text`; `make()` gives the content blocks (or raises NotSent);
    `scope()` is around the whole turn."""

    text: str
    make: Callable[[], Awaitable[Blocks]]
    scope: Callable[[], AbstractContextManager[Any]] = nullcontext
