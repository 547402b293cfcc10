"""A snapshot of the status area with an effort level set and a `statusLine`
command's coloured line under the status bar."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from agentcli.config.settings import load_settings
from agentcli.core.reasoning import Reasoning
from tests.engine.scripted import ScriptedProvider
from tests.frontends.tui.helpers import make_app, wait_for

SIZE = (90, 20)
PROJECT = Path("/project")  # shown in the banner; a fixed path keeps the snapshot stable
LINE = r"""import sys; sys.stdin.read(); print("\x1b[32m main\x1b[0m · \x1b[1;33m2 files changed\x1b[0m")"""


def test_status_bar_with_effort_and_a_status_line(snap_compare, tmp_path):
    (tmp_path / "line.py").write_text(LINE, encoding="utf-8")
    (tmp_path / ".agentcli").mkdir()
    command = f"{sys.executable} {tmp_path / 'line.py'}"
    (tmp_path / ".agentcli" / "settings.json").write_text(
        json.dumps({"statusLine": {"type": "command", "command": command, "padding": 1}})
    )
    app = make_app(
        ScriptedProvider(),
        tmp_path,
        cwd=PROJECT,
        cursor_blink=False,
        engine_kw={
            "settings": load_settings(tmp_path, trusted=True),
            "model": "claude-sonnet-5-5",
            "reasoning": Reasoning(effort="xhigh"),
        },
    )

    async def run_before(pilot):
        await wait_for(pilot, lambda: app.command_status.display, "the status line")
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)
