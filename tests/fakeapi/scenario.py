"""Scenarios for the command-line server: a JSON file of responses, or a built-in.

Subprocess tests, demos and benchmarks cannot call `enqueue()`, so the same
responses can be written declaratively (format in README.md). Two built-ins are
dynamic: `seed` plays the "Change value to 2" demo against whatever conversation
it receives, and `echo` repeats the user's last text forever.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .script import (
    Block,
    Response,
    Scripted,
    cut_stream,
    hang,
    http_error,
    reply,
    stream_error,
    text,
    thinking,
    tool_use,
    web_search,
)


class ScenarioError(ValueError):
    """The scenario file does not describe valid responses."""


@dataclass(frozen=True)
class Scenario:
    responses: list[Scripted]
    default: Scripted | None = None


def load_scenario(name_or_path: str) -> Scenario:
    """`seed`, `echo`, or the path of a JSON scenario file."""
    if name_or_path == "seed":
        return Scenario([], default=SeedDemo(os.environ.get("FAKEAPI_PROJECT_DIR") or os.getcwd()))
    if name_or_path == "echo":
        return Scenario([], default=echo)
    try:
        data = json.loads(Path(name_or_path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        raise ScenarioError(f"cannot read scenario {name_or_path!r}: {err}") from err
    return parse_scenario(data)


def parse_scenario(data: Any) -> Scenario:
    """A list of responses, or {"responses": [...], "default": {...}}."""
    if isinstance(data, list):
        return Scenario([parse_response(item) for item in data])
    if isinstance(data, dict) and "responses" in data:
        default = data.get("default")
        return Scenario(
            [parse_response(item) for item in data["responses"]],
            default=parse_response(default) if default is not None else None,
        )
    raise ScenarioError('a scenario is a list of responses or {"responses": [...]}')


def _parse_block(spec: Any) -> Block:
    if not isinstance(spec, Mapping):
        raise ScenarioError(f"a block must be an object: {spec!r}")
    kind = spec.get("type")
    if kind == "text":
        return text(str(spec["text"]))
    if kind == "tool_use":
        return tool_use(str(spec["name"]), spec.get("input") or {}, id=spec.get("id"))
    if kind == "thinking":
        return thinking(str(spec["thinking"]), signature=spec.get("signature"))
    if kind == "web_search":
        results = [(str(r["title"]), str(r["url"])) for r in spec.get("results") or []]
        return web_search(str(spec["query"]), results, id=spec.get("id"))
    raise ScenarioError(f"unknown block type {kind!r} (text, tool_use, thinking or web_search)")


# Every key a response may have (README.md); any other is a mistake in the scenario.
RESPONSE_KEYS = frozenset(
    {
        "text", "blocks", "stop_reason", "usage", "chunk_size", "error", "message", "type",
        "retry_after", "retry_after_ms", "cut_after_events", "hang_after_events",
        "hang_before_headers", "stream_error_after_events", "error_type",
    }
)  # fmt: skip


def parse_response(spec: Any) -> Response:
    """One declarative response (see README.md); a bare string is a text reply."""
    if isinstance(spec, str):
        return reply(text(spec))
    if not isinstance(spec, Mapping):
        raise ScenarioError(f"a response must be an object or a string: {spec!r}")
    unknown = sorted(set(spec) - RESPONSE_KEYS)
    if unknown:  # e.g. "content" for "blocks": the answer would silently be empty
        raise ScenarioError(f"unknown response keys {unknown} in {spec!r} (see README.md)")
    if "error" in spec:
        return http_error(
            int(spec["error"]),
            spec.get("message"),
            error_type=spec.get("type"),
            retry_after=spec.get("retry_after"),
            retry_after_ms=spec.get("retry_after_ms"),
        )
    if "text" in spec and "blocks" in spec:
        raise ScenarioError(f'use either "text" or "blocks", not both: {spec!r}')
    blocks = [_parse_block(b) for b in spec.get("blocks", [])]
    if "text" in spec:
        blocks = [text(str(spec["text"]))]
    message = reply(
        *blocks,
        stop_reason=spec.get("stop_reason"),
        usage=spec.get("usage"),
        chunk_size=spec.get("chunk_size"),
    )
    if "cut_after_events" in spec:
        return cut_stream(message, after_events=int(spec["cut_after_events"]))
    if "hang_after_events" in spec:
        return hang(message, after_events=int(spec["hang_after_events"]))
    if spec.get("hang_before_headers"):
        return hang(message, before_headers=True)
    if "stream_error_after_events" in spec:
        return stream_error(
            message,
            after_events=int(spec["stream_error_after_events"]),
            error_type=spec.get("error_type", "overloaded_error"),
            message=spec.get("message", "Overloaded"),
        )
    return message


def _texts(content: Any) -> list[str]:
    if isinstance(content, str):
        return [content]
    if not isinstance(content, list):
        return []
    return [b["text"] for b in content if isinstance(b, dict) and b.get("type") == "text"]


def last_user_text(body: Mapping[str, Any]) -> str:
    """The newest text a user typed (skipping messages that only carry tool results)."""
    for message in reversed(body.get("messages") or []):
        if isinstance(message, dict) and message.get("role") == "user":
            found = _texts(message.get("content"))
            if found:
                return "\n".join(found)
    return ""


def echo(body: dict[str, Any]) -> Response:
    said = last_user_text(body)
    return reply(text(f"Echo: {said}" if said else "Echo: (no text)"))


def _tool_results(body: Mapping[str, Any]) -> int:
    return sum(
        1
        for message in body.get("messages") or []
        if isinstance(message, dict) and isinstance(message.get("content"), list)
        for block in message["content"]
        if isinstance(block, dict) and block.get("type") == "tool_result"
    )


@dataclass(frozen=True)
class SeedDemo:
    """Read config.py, edit "value = 1" into "value = 2", then say so.

    The step is chosen from the number of tool results already in the conversation,
    so a retried request gets the same answer again.
    """

    project_dir: str

    def __call__(self, body: dict[str, Any]) -> Response:
        path = str(Path(self.project_dir) / "config.py")
        step = _tool_results(body)
        if step == 0:
            return reply(text("I'll read config.py first."), tool_use("Read", {"file_path": path}))
        if step == 1:
            edit = {"file_path": path, "old_string": "value = 1", "new_string": "value = 2"}
            return reply(text("Now I'll change the value."), tool_use("Edit", edit))
        return reply(text("Changed value to 2 in config.py."))
