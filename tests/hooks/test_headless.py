"""Hooks and settings in `agentcli -p`, as a subprocess against the fake API."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

from tests.fakeapi import reply, text, tool_use
from tests.hooks.helpers import hook_script, payloads
from tests.integration.test_headless_cli import agentcli


def _settings(project: Path, data: dict) -> None:
    folder = project / ".agentcli"
    folder.mkdir(exist_ok=True)
    (folder / "settings.json").write_text(json.dumps(data))


def _hook(event: str, command: str, matcher: str = "") -> dict:
    return {event: [{"matcher": matcher, "hooks": [{"type": "command", "command": command}]}]}


def test_session_and_tool_hooks_run_in_headless_mode(fake_api, tmp_path):
    project = tmp_path / "p"
    project.mkdir()
    hooks_dir = tmp_path / "hooks"
    hooks_dir.mkdir()
    deny = hook_script(hooks_dir, "pre", "sys.stderr.write('no writes today'); sys.exit(2)")
    hooks = {}
    for event in ("SessionStart", "SessionEnd", "UserPromptSubmit", "Stop"):
        hooks.update(_hook(event, hook_script(hooks_dir, event)))
    hooks.update(_hook("PreToolUse", deny, "Write"))
    _settings(project, {"hooks": hooks})
    fake_api.enqueue(reply(tool_use("Write", {"file_path": "a.txt", "content": "x"})))
    fake_api.enqueue(reply(text("Could not write.")))

    done = agentcli(["-p", "write a", "--permission-mode", "bypassPermissions"], project, fake_api)

    assert done.returncode == 0, done.stderr
    assert not (project / "a.txt").exists()
    assert "no writes today" in json.dumps(fake_api.requests[1].body["messages"])
    assert "bypassPermissions" in done.stderr  # the visible warning
    for event in ("SessionStart", "SessionEnd", "UserPromptSubmit", "Stop"):
        (payload,) = payloads(hooks_dir, event)
        assert payload["hook_event_name"] == event
        assert payload["permission_mode"] == "bypassPermissions"
    assert payloads(hooks_dir, "UserPromptSubmit")[0]["prompt"] == "write a"


def test_blocked_prompt_in_headless_mode_calls_no_model(fake_api, tmp_path):
    project = tmp_path / "p"
    project.mkdir()
    cmd = f"{shlex.quote(sys.executable)} -c \"import sys; sys.stderr.write('nope'); sys.exit(2)\""
    _settings(project, {"hooks": _hook("UserPromptSubmit", cmd)})
    done = agentcli(["-p", "hello"], project, fake_api)
    assert fake_api.requests == []
    assert "nope" in done.stderr or "nope" in done.stdout


def test_a_broken_settings_file_is_reported_and_the_run_goes_on(fake_api, tmp_path):
    project = tmp_path / "p"
    (project / ".agentcli").mkdir(parents=True)
    (project / ".agentcli" / "settings.local.json").write_text('{"model": ')
    fake_api.enqueue(reply(text("hi")))
    done = agentcli(["-p", "hello"], project, fake_api)
    assert done.returncode == 0
    assert "settings.local.json" in done.stderr and "skipped" in done.stderr
    assert done.stdout == "hi\n"


def test_settings_deny_rule_refuses_in_headless_bypass(fake_api, tmp_path):
    project = tmp_path / "p"
    project.mkdir()
    _settings(project, {"permissions": {"deny": ["Bash(touch:*)"]}})
    fake_api.enqueue(reply(tool_use("Bash", {"command": "ls && touch made"})))
    fake_api.enqueue(reply(text("ok")))
    done = agentcli(["-p", "go", "--permission-mode", "bypassPermissions"], project, fake_api)
    assert done.returncode == 0, done.stderr
    assert not (project / "made").exists()
