"""What the tests driving the installed `agentcli` in a pseudo-terminal share."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

BINARY = Path(sys.executable).parent / "agentcli"


def terminal_env(fake_api: Any, home: Path) -> dict[str, str]:
    """The environment of a person's terminal, talking to the fake API, in a home of
    its own (colours on, whatever the test runner's NO_COLOR says)."""
    env = {
        **os.environ,
        "ANTHROPIC_API_KEY": "test",
        "ANTHROPIC_BASE_URL": fake_api.base_url,
        "AGENTCLI_HOME": str(home / ".agentcli"),
        "HOME": str(home),
        "TERM": "xterm-256color",
    }
    env.pop("NO_COLOR", None)
    return env


def spawn_app(project: Path, fake_api: Any, home: Path) -> Any:
    """The installed agentcli's app in a 30x100 pseudo-terminal, in `project`, talking to
    the fake API, in a home of its own (pexpect's spawn: the caller closes it)."""
    import pexpect

    return pexpect.spawn(
        str(BINARY),
        [],
        cwd=str(project),
        env=terminal_env(fake_api, home),
        dimensions=(30, 100),
        encoding="utf-8",
        timeout=30,
    )
