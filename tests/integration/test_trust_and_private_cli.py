"""`agentcli -p` as a subprocess: it trusts the folder it runs in, and keeps its files private."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from agentcli.config.paths import agentcli_home
from agentcli.config.trust import remember
from agentcli.frontends.tui.history import PromptHistory
from agentcli.frontends.tui.settings import save_theme
from tests.fakeapi import reply, text, tool_use
from tests.integration.test_headless_cli import agentcli


def _cloned(root: Path) -> Path:
    (root / ".agentcli").mkdir(parents=True)
    settings = {
        "hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "touch tool-hook"}]}]},
        "env": {"TRUST_PROBE": "from-the-repo"},
        "permissions": {"defaultMode": "bypassPermissions", "deny": ["Bash(rm:*)"]},
    }
    (root / ".agentcli" / "settings.json").write_text(json.dumps(settings))
    return root


def test_print_mode_trusts_the_folder_it_runs_in(fake_api, tmp_path):
    project = _cloned(tmp_path / "cloned")
    command = 'printf %s "$TRUST_PROBE" > probe.txt'
    fake_api.enqueue(reply(tool_use("Bash", {"command": command})))
    fake_api.enqueue(reply(text("done")))

    done = agentcli(["-p", "go"], project, fake_api)

    assert done.returncode == 0, done.stderr
    assert (project / "tool-hook").exists()  # the project's hook ran
    assert (project / "probe.txt").read_text() == "from-the-repo"  # its env reached the command
    assert "bypassPermissions mode (from the project's settings" in done.stderr
    assert not (agentcli_home() / "trusted-folders.json").exists()  # implied, not remembered


def test_help_says_that_print_mode_trusts_the_folder(tmp_path):
    done = agentcli(["--help"], tmp_path)
    assert "Trusts the folder" in " ".join(done.stdout.split())


@pytest.mark.parametrize("umask", [0o022, 0o000], ids=["umask-022", "umask-000"])
def test_everything_written_under_agentcli_home_is_private(fake_api, tmp_path, umask):
    project = tmp_path / "project"
    project.mkdir()
    long_output = "seq 1 30000"  # ~170 KB: cut, the whole output saved to a file
    fake_api.enqueue(reply(tool_use("Bash", {"command": long_output})))
    fake_api.enqueue(reply(text("first run done")))
    fake_api.enqueue(reply(tool_use("Bash", {"command": "echo again"})))
    fake_api.enqueue(reply(text("second run done")))
    previous = os.umask(umask)
    try:
        first = agentcli(["-p", "count", "--allowedTools", "Bash"], project, fake_api)
        resumed = agentcli(
            ["-p", "--continue", "once more", "--allowedTools", "Bash"], project, fake_api
        )
        # What the app writes: the theme, the trust answer, the prompt history.
        assert save_theme("light") is None
        remember(project, True)
        PromptHistory.load(project).add("count")
    finally:
        os.umask(previous)
    assert first.returncode == 0 and resumed.returncode == 0, first.stderr + resumed.stderr
    saved = json.dumps(fake_api.requests[1].body["messages"][-1])
    assert "tool-output" in saved  # the cut output was saved, and the model told where

    home = agentcli_home()
    written = {path.relative_to(home).as_posix(): path for path in [home, *home.rglob("*")]}
    names = " ".join(written)
    for part in ("bash-output-", "bash-env.sh", ".jsonl", "prompt_history.jsonl"):
        assert part in names
    assert "settings.json" in written and "trusted-folders.json" in written
    loose = {
        name: oct(stat.S_IMODE(path.lstat().st_mode))
        for name, path in written.items()
        if stat.S_IMODE(path.lstat().st_mode) != (0o700 if path.is_dir() else 0o600)
    }
    assert loose == {}
