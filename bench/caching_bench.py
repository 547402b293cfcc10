"""Prompt caching over a 20-request session: the share of input tokens read from cache.

A session of 10 prompts, each answered with one Read of a project file and
then a short answer (20 model requests), runs through the real engine as
`bootstrap.build_engine()` sets it up (system prompt, memory, cache
breakpoints) and the real SDK, against the fake API server, which simulates
the prompt cache from the breakpoints it receives. Goal: at least 85% of all
input tokens are cache reads. Run alone with `python -m bench.caching_bench`.
"""

from __future__ import annotations

import asyncio
import os
import tempfile
from pathlib import Path

GOAL = 0.85
PROMPTS = 10


def _write_project(root: Path) -> None:
    (root / "AGENTS.md").write_text("# Demo\n\nRun tests with `pytest -q`.\n")
    for i in range(PROMPTS):
        body = "\n".join(
            f"def handler_{i}_{n}(value):\n    return value + {n}\n" for n in range(30)
        )
        (root / f"module_{i}.py").write_text(body)


async def run_session(root: Path, base_url: str) -> list[dict[str, int]]:
    """Run the scripted session; return the usage the server reported for each request."""
    from agentcli.engine.events import AssistantMessage
    from agentcli.providers.anthropic import AnthropicProvider
    from agentcli.providers.base import close_provider
    from agentcli.providers.retry import RetryPolicy
    from agentcli.wiring.bootstrap import Options, build_engine

    options = Options(cwd=root, permission_mode="bypassPermissions")
    provider = AnthropicProvider(
        api_key="bench", base_url=base_url, retry=RetryPolicy(max_retries=0)
    )
    engine = build_engine(options, provider)
    usages = []
    for i in range(PROMPTS):
        async for event in engine.submit_message(f"What does module_{i}.py do? Look at it."):
            if isinstance(event, AssistantMessage):
                usages.append(event.usage.to_dict())
    await close_provider(engine.provider)
    return usages


def measure() -> tuple[float, int, list[dict[str, int]]]:
    from tests.fakeapi import FakeAnthropic, reply, text, tool_use

    with tempfile.TemporaryDirectory(prefix="caching-bench-") as tmp:
        root = Path(tmp) / "project"
        root.mkdir()
        _write_project(root)
        os.environ["AGENTCLI_HOME"] = str(Path(tmp) / "home")  # never touch the real home
        with FakeAnthropic() as server:
            for i in range(PROMPTS):
                server.enqueue(
                    reply(
                        text("Let me read it."), tool_use("Read", {"file_path": f"module_{i}.py"})
                    ),
                    reply(text(f"module_{i}.py defines thirty small handler functions.")),
                )
            usages = asyncio.run(run_session(root, server.base_url))
            requests = len(server.requests)
    read = sum(u["cache_read_input_tokens"] for u in usages)
    total = sum(
        u["input_tokens"] + u["cache_creation_input_tokens"] + u["cache_read_input_tokens"]
        for u in usages
    )
    return (read / total if total else 0.0), requests, usages


def main() -> None:
    previous = os.environ.get("AGENTCLI_HOME")
    try:
        share, requests, usages = measure()
    finally:
        if previous is None:
            os.environ.pop("AGENTCLI_HOME", None)
        else:
            os.environ["AGENTCLI_HOME"] = previous
    read = sum(u["cache_read_input_tokens"] for u in usages)
    written = sum(u["cache_creation_input_tokens"] for u in usages)
    uncached = sum(u["input_tokens"] for u in usages)
    print(
        f"   requests: {requests}  input tokens: uncached {uncached:,}, "
        f"cache write {written:,}, cache read {read:,}"
    )
    verdict = "PASS" if share >= GOAL and requests == 2 * PROMPTS else "FAIL"
    print(f"   cache-read share: {share:.1%} (goal >= {GOAL:.0%})  {verdict}")


if __name__ == "__main__":
    main()
