"""A scripted provider at the engine's seam, and small fake tools.

The provider plays a list of responses in order, streaming text in small
chunks and completing blocks one by one, like the real stream. It records
each request so a test can check what the model would have been sent.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

from agentcli.core.abort import AbortSignal
from agentcli.core.usage import Usage
from agentcli.providers.base import (
    BlockCompleted,
    MessageCompleted,
    ModelError,
    ModelRequest,
    ProviderEvent,
    Retrying,
    StreamStarted,
    TextChunk,
)
from agentcli.tools.base import Tool, ToolContext, ToolError, ToolResult
from agentcli.tools.display import LiveOutput
from agentcli.tools.inputs import ToolInput


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


_ids = iter(range(1, 1_000_000))


def tool_use(name: str, inp: dict[str, Any], id: str | None = None) -> dict[str, Any]:
    return {"type": "tool_use", "id": id or f"toolu_{next(_ids):04d}", "name": name, "input": inp}


@dataclass
class Response:
    blocks: list[dict[str, Any]]
    stop_reason: str | None = None
    usage: Usage = field(default_factory=lambda: Usage(10, 5))
    fail_after_blocks: int | None = None  # raise ModelError after this many blocks
    hang_after_blocks: int | None = None  # then wait until aborted
    retries: int = 0  # report this many Retrying events first
    gate: asyncio.Event | None = None  # wait for this before completing the message


Script = Response | ModelError | Callable[[ModelRequest], "Response | ModelError"]


class ScriptedProvider:
    name = "scripted"

    def __init__(self, *script: Script, chunk: int = 4) -> None:
        self.script = list(script)
        self.requests: list[ModelRequest] = []
        self.invalid: list[str] = []  # requests the real API would have rejected
        self.chunk = chunk

    async def stream(
        self, request: ModelRequest, abort: AbortSignal
    ) -> AsyncIterator[ProviderEvent]:
        self.requests.append(request)
        try:
            check_valid_request(request.messages)
        except AssertionError as problem:
            self.invalid.append(str(problem))
            raise ModelError(f"invalid request: {problem}", status=400) from None
        if not self.script:
            raise AssertionError("the scripted provider has no response left")
        step = self.script.pop(0)
        if callable(step) and not isinstance(step, Response):
            step = step(request)
        if isinstance(step, ModelError):
            raise step
        for attempt in range(1, step.retries + 1):
            yield Retrying(attempt, 8, 0.0, "API Error 529: Overloaded", 529)
        yield StreamStarted("msg_1", request.model, Usage(step.usage.input_tokens, 1))
        for index, block in enumerate(step.blocks):
            if step.fail_after_blocks is not None and index >= step.fail_after_blocks:
                raise ModelError("API Error 500: stream broke", status=500)
            if step.hang_after_blocks is not None and index >= step.hang_after_blocks:
                await abort.wait()
                return
            if block["type"] == "text":
                value = block["text"]
                for start in range(0, len(value), self.chunk):
                    yield TextChunk(index, value[start : start + self.chunk])
                    await asyncio.sleep(0)
            yield BlockCompleted(index, dict(block))
        if step.hang_after_blocks is not None:
            await abort.wait()
            return
        if step.fail_after_blocks is not None:
            raise ModelError("API Error 500: stream broke", status=500)
        if step.gate is not None:
            await step.gate.wait()
        has_tools = any(b["type"] == "tool_use" for b in step.blocks)
        stop = step.stop_reason or ("tool_use" if has_tools else "end_turn")
        yield MessageCompleted(stop, step.usage)


def check_valid_request(messages: list[dict[str, Any]]) -> None:
    """The rules the real API enforces, checked on every scripted request: JSON it can
    parse (no NaN, no half of a surrogate pair), then the pairing of tool calls."""
    try:
        json.dumps(messages, ensure_ascii=False, allow_nan=False).encode("utf-8")
    except (ValueError, UnicodeEncodeError) as problem:
        raise AssertionError(f"the request body is not valid JSON: {problem}") from None
    assert messages and messages[0]["role"] == "user", "first message must be user"
    for i, message in enumerate(messages):
        content = message["content"]
        assert content, f"messages.{i}: empty content"
        assert i == 0 or messages[i - 1]["role"] != message["role"], (
            f"messages.{i}: same role twice"
        )
        for block in content if isinstance(content, list) else []:
            if block["type"] == "text":
                assert block["text"], f"messages.{i}: empty text block"
        uses = [b["id"] for b in content if isinstance(b, dict) and b["type"] == "tool_use"]
        if uses:
            assert i + 1 < len(messages), f"messages.{i}: tool_use without a following message"
            following = messages[i + 1]["content"]
            results = [b["tool_use_id"] for b in following if b["type"] == "tool_result"]
            assert results == uses, f"messages.{i + 1}: results {results} != uses {uses}"
            leading = [b["type"] for b in following[: len(results)]]
            assert leading == ["tool_result"] * len(results), "tool results must come first"


class EchoInput(ToolInput):
    value: str = "x"


@dataclass
class Probe:
    """Shared record of what fake tools did, for concurrency assertions."""

    running: int = 0
    max_running: int = 0
    order: list[str] = field(default_factory=list)
    release: asyncio.Event = field(default_factory=asyncio.Event)
    started: asyncio.Event = field(default_factory=asyncio.Event)


def make_tool(
    name: str,
    probe: Probe,
    *,
    safe: bool,
    behaviour: str = "ok",
) -> Tool:
    """A tool that records concurrency; behaviour: ok | raise | tool_error | wait."""

    class FakeTool(Tool):
        input_model = EchoInput
        read_only = safe
        concurrency_safe = safe

        @property
        def description(self) -> str:
            return f"fake tool {name}"

        def summary(self, inp, workspace):
            return inp.value

        async def run(self, inp: EchoInput, ctx: ToolContext) -> ToolResult:
            probe.running += 1
            probe.max_running = max(probe.max_running, probe.running)
            probe.order.append(f"start:{name}:{inp.value}")
            probe.started.set()
            try:
                ctx.report(LiveOutput(text=f"working on {inp.value}"))
                if behaviour == "wait":
                    await probe.release.wait()
                else:
                    await asyncio.sleep(0)
                if behaviour == "raise":
                    raise RuntimeError("boom")
                if behaviour == "tool_error":
                    raise ToolError(f"{name} cannot do {inp.value}")
                return ToolResult(f"{name} did {inp.value}")
            finally:
                probe.running -= 1
                probe.order.append(f"end:{name}:{inp.value}")

    FakeTool.name = name
    return FakeTool()
