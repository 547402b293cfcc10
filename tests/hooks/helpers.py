"""Hook scripts written into the test's folder, run with this Python."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import Any

from agentcli.config.hooks import HooksConfig
from agentcli.hooks.events import Hooks

SCRIPT = """\
import json, sys
payload = json.load(sys.stdin)
with open({log!r}, "a") as fh:
    fh.write(json.dumps(payload) + "\\n")
{body}
"""


def hook_script(folder: Path, name: str, body: str = "") -> str:
    """A hook command that logs its stdin payload to <name>.log, then runs `body`."""
    log = folder / f"{name}.log"
    path = folder / f"{name}.py"
    path.write_text(SCRIPT.format(log=str(log), body=body))
    return f"{shlex.quote(sys.executable)} {shlex.quote(str(path))}"


def payloads(folder: Path, name: str) -> list[dict[str, Any]]:
    log = folder / f"{name}.log"
    if not log.exists():
        return []
    return [json.loads(line) for line in log.read_text().splitlines()]


def make_hooks(folder: Path, config: dict[str, Any], **kw: Any) -> Hooks:
    return Hooks(HooksConfig.model_validate(config), folder, session_id="sess-1", **kw)


def one(event: str, command: str, matcher: str = "", timeout: float | None = None) -> dict:
    hook: dict[str, Any] = {"type": "command", "command": command}
    if timeout is not None:
        hook["timeout"] = timeout
    return {event: [{"matcher": matcher, "hooks": [hook]}]}
