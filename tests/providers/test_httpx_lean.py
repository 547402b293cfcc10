"""agentcli.providers.httpx_lean: httpx without its command line, and nothing else changed."""

from __future__ import annotations

import subprocess
import sys

CHECK = """
import sys
from agentcli.providers.httpx_lean import httpx
print("cli" if "httpx._main" in sys.modules or "click" in sys.modules else "no-cli")
print(httpx.AsyncClient.__module__)
import httpx._main
print("importable" if sys.modules["httpx._main"] is not None else "blocked")
"""


def test_httpx_loads_without_its_command_line_which_stays_importable():
    done = subprocess.run(
        [sys.executable, "-c", CHECK], capture_output=True, text=True, timeout=60, check=True
    )

    assert done.stdout.split() == ["no-cli", "httpx", "importable"]
