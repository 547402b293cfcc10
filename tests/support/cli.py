"""The real agentcli as a process: the environment it gets, and one run of it.

Tests that drive the binary (tests/integration, tests/session/test_kill.py,
tests/frontends/sdk) start it through here, so every run gets the same clean
environment: the test's own HOME and AGENTCLI_HOME (tests/conftest.py set them),
none of the developer's ANTHROPIC_* variables, and retries without delay.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

# `python -m agentcli`: the package of this checkout, whatever is on PATH.
MODULE = [sys.executable, "-m", "agentcli"]


def agentcli_env(api: Any = None, *, key: str | None = "test-key", **more: str) -> dict[str, str]:
    """The environment of a spawned agentcli. `api`: a fake server (its `base_url` becomes
    ANTHROPIC_BASE_URL); `key`: ANTHROPIC_API_KEY (None: no key); `more`: set last."""
    env = {name: value for name, value in os.environ.items() if not name.startswith("ANTHROPIC_")}
    env["AGENTCLI_RETRY_BASE_DELAY_MS"] = "0"
    if key is not None:
        env["ANTHROPIC_API_KEY"] = key
    if api is not None:
        env["ANTHROPIC_BASE_URL"] = api.base_url
    env.update(more)
    return env


def run_agentcli(
    args: list[str],
    cwd: Path,
    env: dict[str, str],
    *,
    stdin: str | None = None,
    timeout: float = 60,
    command: list[str] = MODULE,
) -> subprocess.CompletedProcess[str]:
    """`agentcli ARGS` in `cwd` to its exit; `stdin`: its whole input (None: inherit none)."""
    return subprocess.run(
        [*command, *args],
        cwd=cwd,
        env=env,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def start_agentcli(
    args: list[str],
    cwd: Path,
    env: dict[str, str],
    *,
    stdin: int | None = subprocess.DEVNULL,
    command: list[str] = MODULE,
) -> subprocess.Popen[str]:
    """`agentcli ARGS` started in `cwd`, its stdout and stderr piped (the caller waits)."""
    return subprocess.Popen(
        [*command, *args],
        cwd=cwd,
        env=env,
        stdin=stdin,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
