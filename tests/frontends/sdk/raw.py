"""`agentcli --input-format stream-json` as a subprocess spoken to line by line, without
the SDK: for what a well-behaved SDK never sends (bad lines, unknown requests)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

from tests.frontends.sdk.support import AGENTCLI

SDK_FLAGS = ["--output-format", "stream-json", "--verbose", "--input-format", "stream-json"]


def agentcli_env(fake_api: Any) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
    env.update(
        ANTHROPIC_BASE_URL=fake_api.base_url,
        ANTHROPIC_API_KEY="test-key",
        AGENTCLI_RETRY_BASE_DELAY_MS="0",
    )
    return env


def start(fake_api: Any, project: Path, *flags: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [str(AGENTCLI), *SDK_FLAGS, *flags],
        cwd=project,
        env=agentcli_env(fake_api),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def run(
    fake_api: Any, project: Path, lines: list[Any], *flags: str
) -> tuple[list[dict[str, Any]], str, int]:
    """Send `lines` (objects as JSON, strings as they are), close stdin, wait for the exit.
    Returns the stdout objects, stderr, and the exit status."""
    process = start(fake_api, project, *flags)
    text = "".join((line if isinstance(line, str) else json.dumps(line)) + "\n" for line in lines)
    out, err = process.communicate(text, timeout=60)
    return [json.loads(line) for line in out.splitlines()], err, process.returncode


def user(text: str) -> dict[str, Any]:
    return {
        "type": "user",
        "message": {"role": "user", "content": text},
        "parent_tool_use_id": None,
        "session_id": "",
    }


def control(request_id: str, **request: Any) -> dict[str, Any]:
    return {"type": "control_request", "request_id": request_id, "request": request}


def response_to(lines: list[dict[str, Any]], request_id: str) -> dict[str, Any]:
    [found] = [
        line["response"]
        for line in lines
        if line["type"] == "control_response" and line["response"]["request_id"] == request_id
    ]
    return found
