"""A fake Anthropic Messages API server for tests, demos and benchmarks.

Start one with `FakeAnthropic()` (a context manager), script its answers with
`reply(text(...), tool_use(...), web_search(...))`, `http_error(...)`, `cut_stream(...)`,
`hang(...)` and `stream_error(...)`, and point the real `anthropic` SDK at `server.base_url`.
See README.md in this folder.
"""

from __future__ import annotations

from .cache import CacheUsage, PromptCache
from .gate import Gate
from .script import (
    CutStream,
    Hang,
    HttpError,
    Reply,
    Response,
    Scripted,
    StreamError,
    TextBlock,
    ThinkingBlock,
    ToolUseBlock,
    WebSearchBlock,
    cut_stream,
    hang,
    http_error,
    new_tool_use_id,
    reply,
    stream_error,
    text,
    thinking,
    tool_use,
    web_search,
)
from .server import NO_RESPONSE_LEFT, FakeAnthropic, RecordedRequest
from .validation import validate_request

__all__ = [
    "NO_RESPONSE_LEFT",
    "CacheUsage",
    "CutStream",
    "FakeAnthropic",
    "Gate",
    "Hang",
    "HttpError",
    "PromptCache",
    "RecordedRequest",
    "Reply",
    "Response",
    "Scripted",
    "StreamError",
    "TextBlock",
    "ThinkingBlock",
    "ToolUseBlock",
    "WebSearchBlock",
    "cut_stream",
    "hang",
    "http_error",
    "new_tool_use_id",
    "reply",
    "stream_error",
    "text",
    "thinking",
    "tool_use",
    "validate_request",
    "web_search",
]
