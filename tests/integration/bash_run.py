"""The real `agentcli -p` running scripted Bash calls against the fake API.

The fake model asks for one Bash call per command, in order, then says
"done"; what each call returned is read back from the requests agentcli sent
(the tool_result blocks), which is exactly what the model would have seen.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.fakeapi import reply, text, tool_use

KEY = "sk-ant-test-key-do-not-leak"


@dataclass
class BashRun:
    done: subprocess.CompletedProcess[str]
    results: list[dict[str, Any]]  # one tool_result block per command, in order

    def output(self, index: int = 0) -> str:
        content = self.results[index]["content"]
        if isinstance(content, list):
            return "".join(block.get("text", "") for block in content)
        return str(content)


def run_bash(
    server: Any,
    project: Path,
    commands: list[str],
    args: list[str] = (),  # type: ignore[assignment]
    settings: dict[str, Any] | None = None,
    env: dict[str, str] | None = None,
) -> BashRun:
    """`agentcli -p` in `project`, the model running `commands` with Bash one by one."""
    for command in commands:
        server.enqueue(reply(tool_use("Bash", {"command": command})))
    server.enqueue(reply(text("done")))
    if settings is not None:
        local = project / ".agentcli" / "settings.local.json"
        local.parent.mkdir(parents=True, exist_ok=True)
        local.write_text(json.dumps(settings))
    full_env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
    full_env.update(
        AGENTCLI_RETRY_BASE_DELAY_MS="0",
        ANTHROPIC_API_KEY=KEY,
        ANTHROPIC_BASE_URL=server.base_url,
        **(env or {}),
    )
    done = subprocess.run(
        [sys.executable, "-m", "agentcli", "-p", "run the commands", *args],
        cwd=project,
        env=full_env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    return BashRun(done, _tool_results(server))


def _tool_results(server: Any) -> list[dict[str, Any]]:
    if not server.requests:
        return []
    messages = server.requests[-1].body["messages"]
    return [
        block
        for message in messages
        if message["role"] == "user" and isinstance(message["content"], list)
        for block in message["content"]
        if block.get("type") == "tool_result"
    ]
