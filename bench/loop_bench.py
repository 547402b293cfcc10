"""Loop overhead: a 50-turn session with an instant provider and instant tools.

Everything measured is our code (the loop, orchestration, permission checks,
event objects), since the provider and the tool return at once. The baseline
printed beside it is the same session's event count, to read the cost per
event as well as per turn.
"""

from __future__ import annotations

import asyncio
import statistics
import tempfile
import time
from collections.abc import AsyncIterator
from pathlib import Path

from agentcli.core.abort import AbortSignal
from agentcli.core.usage import Usage
from agentcli.engine.parts import EngineConfig
from agentcli.permissions.policy import PermissionPolicy
from agentcli.permissions.types import PermissionMode
from agentcli.providers.base import (
    BlockCompleted,
    MessageCompleted,
    ModelRequest,
    ProviderEvent,
    StreamStarted,
    TextChunk,
)
from agentcli.tools.base import Tool, ToolContext, ToolInput, ToolResult, Workspace
from agentcli.tools.registry import ToolRegistry
from agentcli.wiring.composition import assemble
from bench.common import report

TURNS = 50
REPEATS = 15


class PingInput(ToolInput):
    n: int = 0


class PingTool(Tool):
    name = "Ping"
    input_model = PingInput
    read_only = True
    concurrency_safe = True

    @property
    def description(self) -> str:
        return "Answers at once."

    async def run(self, inp: PingInput, ctx: ToolContext) -> ToolResult:
        return ToolResult(f"pong {inp.n}")


class InstantProvider:
    """Answers with one tool call per turn for TURNS turns, then a short text."""

    name = "instant"

    def __init__(self) -> None:
        self.calls = 0

    async def stream(
        self, request: ModelRequest, abort: AbortSignal
    ) -> AsyncIterator[ProviderEvent]:
        self.calls += 1
        yield StreamStarted("msg", request.model, Usage(100, 1))
        yield TextChunk(0, "Checking.")
        yield BlockCompleted(0, {"type": "text", "text": "Checking."})
        if self.calls <= TURNS:
            block = {
                "type": "tool_use",
                "id": f"toolu_{self.calls}",
                "name": "Ping",
                "input": {"n": self.calls},
            }
            yield BlockCompleted(1, block)
        yield MessageCompleted("tool_use" if self.calls <= TURNS else "end_turn", Usage(100, 20))


async def one_session(root: Path) -> tuple[float, int]:
    engine = assemble(
        provider=InstantProvider(),
        tools=ToolRegistry([PingTool()]),
        policy=PermissionPolicy(Workspace(root=root), PermissionMode.DEFAULT),
        config=EngineConfig(model="claude-sonnet-5-5"),
        persist=False,
        shape_requests=False,
    )
    started = time.perf_counter()
    count = 0
    async for _event in engine.submit_message("ping fifty times"):
        count += 1
    elapsed = time.perf_counter() - started
    assert engine.turns == TURNS + 1, engine.turns
    return elapsed, count


def main() -> None:
    root = Path(tempfile.mkdtemp(prefix="agentcli-loop-bench-"))
    samples = []
    events = 0
    for _ in range(REPEATS):
        elapsed, events = asyncio.run(one_session(root))
        samples.append(elapsed)
    per_turn_ms = statistics.median(samples) / (TURNS + 1) * 1000
    per_event_us = statistics.median(samples) / events * 1e6
    report(
        f"loop: {TURNS}-turn session, per turn", f"{per_turn_ms:.3f} ms", "< 2 ms", per_turn_ms < 2
    )
    report("  per event", f"{per_event_us:.1f} us ({events} events)", "-", True)


if __name__ == "__main__":
    main()
