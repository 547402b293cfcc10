"""What a test tells the fake server to answer: content blocks and response kinds.

These are plain values, built by small functions (`reply`, `text`, `tool_use`, ...)
so that a test reads like the conversation it scripts. The server turns them into
bytes on the wire (see `sse.py`); nothing here knows about HTTP.
"""

from __future__ import annotations

import itertools
import json
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeAlias

from .gate import Gate

_tool_ids = itertools.count(1)


def new_tool_use_id() -> str:
    """A fresh id matching the real API's pattern `^[a-zA-Z0-9_-]+$`, unique in this process."""
    return f"toolu_fake{next(_tool_ids):014d}"


@dataclass(frozen=True)
class TextBlock:
    text: str


@dataclass(frozen=True)
class ToolUseBlock:
    name: str
    input: Mapping[str, Any]
    id: str
    # The input as the model wrote it, when that is not `input` as JSON: malformed
    # arguments (cut off, not an object), streamed as they are.
    raw_input: str | None = None

    def input_json(self) -> str:
        """The input as the text the model streams."""
        if self.raw_input is not None:
            return self.raw_input
        return json.dumps(dict(self.input), ensure_ascii=False)


@dataclass(frozen=True)
class ThinkingBlock:
    thinking: str
    signature: str


@dataclass(frozen=True)
class SearchResult:
    """One page a web search found (a `web_search_result`)."""

    title: str
    url: str
    page_age: str | None = None


@dataclass(frozen=True)
class WebSearchBlock:
    """A search the API ran on its side: on the wire, a `server_tool_use` block and
    the `web_search_tool_result` block after it (or an error, with `error_code`)."""

    query: str
    results: tuple[SearchResult, ...]
    id: str
    error_code: str | None = None


Block: TypeAlias = TextBlock | ToolUseBlock | ThinkingBlock | WebSearchBlock


@dataclass(frozen=True)
class Reply:
    """A complete assistant message, streamed (or returned) as the real API would."""

    blocks: tuple[Block, ...]
    stop_reason: str
    stop_sequence: str | None = None
    # Overrides of the computed usage numbers, e.g. {"input_tokens": 1000}.
    usage: Mapping[str, int] = field(default_factory=dict)
    # Characters per text/thinking/json delta; None picks a size giving several deltas.
    chunk_size: int | None = None


@dataclass(frozen=True)
class HttpError:
    """An HTTP error status with the real API's JSON error body."""

    status: int
    error_type: str
    message: str
    headers: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class CutStream:
    """Send the first `after_events` events of `reply`, then drop the connection.

    The zero-length chunk that ends a chunked body is never sent, so the client sees
    an incomplete body. `after_events=None` cuts halfway through the stream.
    `reset=True` closes with a TCP RST instead of a FIN.
    """

    reply: Reply
    after_events: int | None = None
    reset: bool = False


@dataclass(frozen=True, eq=False)
class Hang:
    """Send the first `after_events` events of `reply`, then block on `gate`.

    With `before_headers`, block before the status line instead: a server that accepts
    the request and never answers. The response goes on (in full, when blocked before
    the headers) when the test calls `release()`; it ends without the rest when the
    client disconnects or the server stops. `reached` is set once the server is
    blocked, so a test can wait for "mid-stream" without sleeping.
    """

    reply: Reply
    after_events: int | None = None
    gate: Gate = field(default_factory=Gate)
    before_headers: bool = False

    @property
    def reached(self) -> threading.Event:
        return self.gate.reached

    def release(self) -> None:
        self.gate.release()


@dataclass(frozen=True)
class StreamError:
    """Send the first `after_events` events of `reply`, then an `event: error` and end.

    This is how the real API reports overload once a stream has started (HTTP 200
    already sent). For a non-streaming request it becomes the matching HTTP error.
    """

    reply: Reply
    after_events: int | None = None
    error_type: str = "overloaded_error"
    message: str = "Overloaded"


Response: TypeAlias = Reply | HttpError | CutStream | Hang | StreamError
# A dynamic response: called with the parsed request body when the request arrives.
Responder: TypeAlias = Callable[[dict[str, Any]], "Scripted"]
Scripted: TypeAlias = Response | str | Responder


def text(value: str) -> TextBlock:
    return TextBlock(value)


def tool_use(
    name: str,
    input: Mapping[str, Any] | None = None,
    *,
    id: str | None = None,
    raw_input: str | None = None,
) -> ToolUseBlock:
    """A tool call; `raw_input`: the arguments text to stream instead of `input`'s JSON
    (a model that writes malformed arguments)."""
    block_id = id or new_tool_use_id()
    return ToolUseBlock(name=name, input=dict(input or {}), id=block_id, raw_input=raw_input)


def web_search(
    query: str,
    results: list[tuple[str, str]] | None = None,
    *,
    id: str | None = None,
    error_code: str | None = None,
) -> WebSearchBlock:
    """A server-side web search: `results` are (title, url) pairs. Served only to a
    request that offers the web_search tool (the real model cannot search otherwise)."""
    found = tuple(SearchResult(title, url) for title, url in results or [])
    return WebSearchBlock(query, found, id or new_server_tool_use_id(), error_code)


def new_server_tool_use_id() -> str:
    """A fresh id of the real API's shape for server tools: `srvtoolu_...`."""
    return f"srvtoolu_fake{next(_tool_ids):014d}"


def thinking(value: str, *, signature: str | None = None) -> ThinkingBlock:
    return ThinkingBlock(thinking=value, signature=signature or "c2lnbmF0dXJlLWZha2U=")


def reply(
    *blocks: Block | str,
    stop_reason: str | None = None,
    stop_sequence: str | None = None,
    usage: Mapping[str, int] | None = None,
    chunk_size: int | None = None,
) -> Reply:
    """An assistant message; plain strings become text blocks.

    `stop_reason` defaults to "tool_use" when a tool_use block is present (what the real
    model reports), else "end_turn".
    """
    built = tuple(text(b) if isinstance(b, str) else b for b in blocks)
    if stop_reason is None:
        stop_reason = "tool_use" if any(isinstance(b, ToolUseBlock) for b in built) else "end_turn"
    return Reply(
        blocks=built,
        stop_reason=stop_reason,
        stop_sequence=stop_sequence,
        usage=dict(usage or {}),
        chunk_size=chunk_size,
    )


# Error type and message the real API uses for each status, as defaults.
_ERROR_DEFAULTS: dict[int, tuple[str, str]] = {
    400: ("invalid_request_error", "Invalid request"),
    401: ("authentication_error", "invalid x-api-key"),
    403: (
        "permission_error",
        "Your API key does not have permission to use the specified resource.",
    ),
    404: ("not_found_error", "Not found"),
    413: ("request_too_large", "Request exceeds the maximum allowed number of bytes."),
    429: (
        "rate_limit_error",
        "This request would exceed the rate limit for your organization. Please try again later.",
    ),
    500: ("api_error", "Internal server error"),
    529: ("overloaded_error", "Overloaded"),
}


def http_error(
    status: int,
    message: str | None = None,
    *,
    error_type: str | None = None,
    retry_after: str | None = None,
    retry_after_ms: str | None = None,
    headers: Mapping[str, str] | None = None,
) -> HttpError:
    """An HTTP error. A 429 always carries `retry-after` (default "0"), like the real API.

    Note that the anthropic SDK ignores `retry-after: 0` and falls back to its own
    backoff; use `retry_after_ms` (which it reads first) for a tiny non-zero wait.
    """
    default_type, default_message = _ERROR_DEFAULTS.get(
        status, ("api_error" if status >= 500 else "invalid_request_error", f"Error {status}")
    )
    extra: list[tuple[str, str]] = []
    if status == 429 and retry_after is None:
        retry_after = "0"
    if retry_after is not None:
        extra.append(("retry-after", str(retry_after)))
    if retry_after_ms is not None:
        extra.append(("retry-after-ms", str(retry_after_ms)))
    extra.extend((headers or {}).items())
    return HttpError(
        status=status,
        error_type=error_type or default_type,
        message=message or default_message,
        headers=tuple(extra),
    )


_UNFINISHED = "This answer is cut short before it can finish."


def cut_stream(
    response: Reply | None = None, *, after_events: int | None = None, reset: bool = False
) -> CutStream:
    return CutStream(
        reply=response or reply(text(_UNFINISHED)), after_events=after_events, reset=reset
    )


def hang(
    response: Reply | None = None,
    *,
    after_events: int | None = None,
    before_headers: bool = False,
) -> Hang:
    if before_headers and after_events is not None:
        raise ValueError("hang: before_headers sends no events; drop after_events")
    return Hang(
        reply=response or reply(text(_UNFINISHED)),
        after_events=after_events,
        before_headers=before_headers,
    )


def stream_error(
    response: Reply | None = None,
    *,
    after_events: int | None = None,
    error_type: str = "overloaded_error",
    message: str = "Overloaded",
) -> StreamError:
    return StreamError(
        reply=response or reply(text(_UNFINISHED)),
        after_events=after_events,
        error_type=error_type,
        message=message,
    )


# Status the real API uses for each error type, for errors raised outside a stream.
ERROR_STATUS: dict[str, int] = {
    "invalid_request_error": 400,
    "authentication_error": 401,
    "permission_error": 403,
    "not_found_error": 404,
    "request_too_large": 413,
    "rate_limit_error": 429,
    "api_error": 500,
    "overloaded_error": 529,
}


def resolve(scripted: Scripted, body: dict[str, Any]) -> Response:
    """Turn a scripted entry into a concrete response for this request body.

    Callables are called with the body (and may return another callable or a string).
    """
    for _ in range(10):
        if isinstance(scripted, str):
            return reply(text(scripted))
        if isinstance(scripted, Reply | HttpError | CutStream | Hang | StreamError):
            return scripted
        if callable(scripted):
            scripted = scripted(body)
            continue
        raise TypeError(f"fake server: cannot use {scripted!r} as a response")
    raise TypeError("fake server: dynamic responses nested more than 10 deep")
