"""Server-Sent Events, read off an HTTP response's lines.

The model APIs stream their answers as `text/event-stream`: `event:` and
`data:` lines, an event ending at a blank line. This is the framing alone,
as the WHATWG spec defines it (comment lines and unknown fields ignored, an
event cut off by the end of the stream dropped); what the data means is each
provider's business, except that every API here sends one JSON object as an
event's data (`event_json` reads it, and names anything else it finds).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterable, AsyncIterator
from dataclasses import dataclass
from typing import Any

from agentcli.providers.failures import StreamGarbled

_DATA_SHOWN = 200  # characters of an event's data that cannot be read, in the message


@dataclass(frozen=True, slots=True)
class SseEvent:
    """One event: its `event:` name (None when it has none) and its data lines, joined."""

    event: str | None
    data: str


async def sse_events(lines: AsyncIterable[str]) -> AsyncIterator[SseEvent]:
    """The events in `lines` (without their line endings, as httpx's `aiter_lines` gives)."""
    name: str | None = None
    data: list[str] = []
    seen_data = False
    async for line in lines:
        if not line:
            if seen_data:
                yield SseEvent(name, "\n".join(data))
            name, data, seen_data = None, [], False
            continue
        field, colon, value = line.partition(":")
        if colon and value.startswith(" "):
            value = value[1:]
        if field == "event":
            name = value
        elif field == "data":
            data.append(value)
            seen_data = True


def event_json(event: SseEvent) -> dict[str, Any]:
    """The event's data as the JSON object it must be. Raises StreamGarbled, quoting
    what came instead (a proxy's HTML page, a marker this API does not send)."""
    try:
        data = json.loads(event.data)
    except (ValueError, RecursionError):
        data = None
    if not isinstance(data, dict):
        shown = event.data if len(event.data) <= _DATA_SHOWN else event.data[:_DATA_SHOWN] + "…"
        raise StreamGarbled(f"an event's data is not a JSON object: {shown!r}")
    return data
