"""The ten-line program of docs/sdk.md, run as written against the fake Messages API."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from tests.fakeapi import reply, text, tool_use
from tests.support.cli import agentcli_env

DOC = Path(__file__).parents[3] / "docs" / "sdk.md"


def example_program() -> str:
    [program] = re.findall(r"```python\n(.*?)```", DOC.read_text(), re.S)
    return program


def test_the_documented_program_changes_the_file(fake_api, project):
    config = project / "config.py"
    fake_api.enqueue(reply(text("Let me read it."), tool_use("Read", {"file_path": str(config)})))
    edit = {"file_path": str(config), "old_string": "value = 1", "new_string": "value = 2"}
    fake_api.enqueue(reply(tool_use("Edit", edit)))
    fake_api.enqueue(reply(text("Changed value to 2 in config.py.")))
    program = project / "program.py"
    program.write_text(example_program())
    assert len(example_program().strip().splitlines()) <= 11  # "a ten-line program"
    env = agentcli_env(fake_api)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"

    done = subprocess.run(
        [sys.executable, str(program)],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )

    assert done.returncode == 0, done.stderr
    assert done.stdout == "Changed value to 2 in config.py.\n"
    assert config.read_text() == "value = 2\n"
