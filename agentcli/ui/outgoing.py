"""A message the app sends whose content is made when its turn starts.

Most messages are the text typed (with `@` attachments read as the turn
starts). An MCP prompt command sends its prompt's messages instead: they are
fetched from the server when the turn starts, so the conversation shows the
command at once, a queued one keeps its place, and Esc stops a server that
is slow to answer like any other part of a turn. A prompt that cannot be
fetched raises `NotSent`, whose words the app shows; nothing goes to the
model then.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

Blocks = list[dict[str, Any]]


class NotSent(Exception):
    """The message's content could not be made; the message says why, for the person."""


@dataclass(frozen=True)
class Prepared:
    """Shown as `text`; `make()` gives the content blocks (or raises NotSent)."""

    text: str
    make: Callable[[], Awaitable[Blocks]]
