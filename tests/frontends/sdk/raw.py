"""`agentcli --input-format stream-json` as a subprocess spoken to line by line, without
the SDK: for what a well-behaved SDK never sends (bad lines, unknown requests)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from tests.frontends.sdk.support import AGENTCLI
from tests.support.cli import agentcli_env, start_agentcli

SDK_FLAGS = ["--output-format", "stream-json", "--verbose", "--input-format", "stream-json"]


def start(fake_api: Any, project: Path, *flags: str) -> subprocess.Popen[str]:
    return start_agentcli(
        [*SDK_FLAGS, *flags],
        project,
        agentcli_env(fake_api),
        stdin=subprocess.PIPE,
        command=[str(AGENTCLI)],
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
