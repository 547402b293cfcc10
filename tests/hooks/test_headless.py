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


def test_a_failing_bash_fires_post_tool_use_failure_and_its_context_reaches_the_model(
    fake_api, tmp_path
):
    """A settings file naming the new events loads (it was skipped whole), a Bash that
    exits non-zero fires PostToolUseFailure with Claude Code's fields, and the hook's
    additionalContext is in the next request."""
    project = tmp_path / "p"
    project.mkdir()
    hooks_dir = tmp_path / "hooks"
    hooks_dir.mkdir()
    out = {
        "hookSpecificOutput": {
            "hookEventName": "PostToolUseFailure",
            "additionalContext": "run make deps first",
        }
    }
    failure = hook_script(hooks_dir, "failure", f"print(json.dumps({out!r}))")
    post = hook_script(hooks_dir, "post")
    _settings(
        project,
        {"hooks": {**_hook("PostToolUseFailure", failure, "Bash"), **_hook("PostToolUse", post)}},
    )
    fake_api.enqueue(reply(tool_use("Bash", {"command": "echo half; exit 3"}, id="toolu_b")))
    fake_api.enqueue(reply(text("It failed.")))

    done = agentcli(["-p", "build", "--permission-mode", "bypassPermissions"], project, fake_api)

    assert done.returncode == 0, done.stderr
    assert "skipped" not in done.stderr
    (payload,) = payloads(hooks_dir, "failure")
    assert payload["hook_event_name"] == "PostToolUseFailure"
    assert payload["session_id"] and payload["cwd"] == str(project.resolve())
    assert payload["transcript_path"] and payload["permission_mode"] == "bypassPermissions"
    assert payload["tool_name"] == "Bash" and payload["tool_use_id"] == "toolu_b"
    assert payload["tool_input"]["command"] == "echo half; exit 3"
    assert "Exit code: 3" in payload["error"] and payload["is_interrupt"] is False
    assert isinstance(payload["duration_ms"], int)
    assert payloads(hooks_dir, "post") == []
    assert "run make deps first" in json.dumps(fake_api.requests[1].body["messages"])


def test_a_permission_request_hook_answers_the_question_headless_mode_cannot_ask(
    fake_api, tmp_path
):
    project = tmp_path / "p"
    project.mkdir()
    hooks_dir = tmp_path / "hooks"
    hooks_dir.mkdir()
    allow_txt = (
        "if payload['tool_input'].get('file_path', '').endswith('ok.txt'):\n"
        "    print(json.dumps({'hookSpecificOutput': {'hookEventName': 'PermissionRequest',"
        " 'decision': {'behavior': 'allow'}}}))\n"
        "else:\n"
        "    print(json.dumps({'hookSpecificOutput': {'hookEventName': 'PermissionRequest',"
        " 'decision': {'behavior': 'deny', 'message': 'only ok.txt'}}}))"
    )
    request = hook_script(hooks_dir, "request", allow_txt)
    _settings(project, {"hooks": _hook("PermissionRequest", request, "Write")})
    fake_api.enqueue(
        reply(
            tool_use("Write", {"file_path": "ok.txt", "content": "yes\n"}, id="toolu_1"),
            tool_use("Write", {"file_path": "no.txt", "content": "no\n"}, id="toolu_2"),
        )
    )
    fake_api.enqueue(reply(text("One of two.")))

    done = agentcli(["-p", "write both"], project, fake_api)  # default mode: it would refuse

    assert done.returncode == 0, done.stderr
    assert (project / "ok.txt").read_text() == "yes\n"
    assert not (project / "no.txt").exists()
    sent = json.dumps(fake_api.requests[1].body["messages"])
    assert "only ok.txt" in sent and "non-interactive" not in sent
    asked = payloads(hooks_dir, "request")
    assert [p["tool_input"]["file_path"] for p in asked] == ["ok.txt", "no.txt"]
    assert all(p["permission_mode"] == "default" for p in asked)
