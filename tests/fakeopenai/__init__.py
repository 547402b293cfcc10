"""A fake OpenAI-compatible server (Chat Completions and Responses) for tests.

Scripted with the same builders as the fake Messages API (`reply`, `text`,
`tool_use`, `http_error`, `cut_stream`, `hang`, `stream_error` from
tests/fakeapi), so one scenario runs against every provider.
"""

from __future__ import annotations

from .server import CHAT_PATH, MODELS_PATH, RESPONSES_PATH, FakeOpenAI

__all__ = ["CHAT_PATH", "MODELS_PATH", "RESPONSES_PATH", "FakeOpenAI"]
