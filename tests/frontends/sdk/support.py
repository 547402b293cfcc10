"""Running the real Claude Agent SDK against `agentcli`: its options, and reading a turn.

The SDK spawns `cli_path` (our `agentcli` binary beside this Python) with the
environment it is given plus its own; ANTHROPIC_BASE_URL points that process at
the fake Messages API served by the test (tests/fakeapi).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from claude_agent_sdk import ClaudeAgentOptions, ResultMessage

AGENTCLI = Path(sys.executable).parent / "agentcli"


def sdk_options(fake_api: Any, project: Path, **more: Any) -> ClaudeAgentOptions:
    """Options that run `agentcli` in `project` against `fake_api`; `more` are the test's own."""
    env = {
        "ANTHROPIC_BASE_URL": fake_api.base_url,
        "ANTHROPIC_API_KEY": "test-key",
        "AGENTCLI_RETRY_BASE_DELAY_MS": "0",
    }
    stderr_lines: list[str] = more.pop("stderr_lines", [])
    return ClaudeAgentOptions(
        cli_path=AGENTCLI,
        cwd=project,
        env=env,
        stderr=stderr_lines.append,
        **more,
    )


async def until_result(messages: Any) -> list[Any]:
    """Every message of one turn, up to and including its ResultMessage."""
    seen = []
    async for message in messages:
        seen.append(message)
        if isinstance(message, ResultMessage):
            break
    return seen


def result_of(messages: list[Any]) -> ResultMessage:
    results = [m for m in messages if isinstance(m, ResultMessage)]
    assert len(results) == 1, messages
    return results[0]


def tool_results(request_body: dict[str, Any]) -> list[dict[str, Any]]:
    """The tool_result blocks of the last user message of a request the agent sent."""
    content = request_body["messages"][-1]["content"]
    return [block for block in content if block.get("type") == "tool_result"]
