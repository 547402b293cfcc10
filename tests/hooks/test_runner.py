"""Hook commands: the payload, exit codes, JSON output and the timeout."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from agentcli.config.hook_events import HookEvent
from tests.hooks.helpers import hook_script, make_hooks, one, payloads


async def test_payload_has_the_common_and_event_fields(tmp_path):
    cmd = hook_script(tmp_path, "pre")
    hooks = make_hooks(tmp_path, one("PreToolUse", cmd), transcript_path="/t.jsonl")
    await hooks.pre_tool_use("Bash", {"command": "ls"}, "toolu_1")
    (payload,) = payloads(tmp_path, "pre")
    assert payload == {
        "session_id": "sess-1",
        "transcript_path": "/t.jsonl",
        "cwd": str(tmp_path),
        "permission_mode": "default",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "ls"},
        "tool_use_id": "toolu_1",
    }


async def test_exit_2_blocks_with_stderr(tmp_path):
    cmd = hook_script(tmp_path, "h", "sys.stderr.write('no rm here'); sys.exit(2)")
    outcome = await make_hooks(tmp_path, one("PreToolUse", cmd)).pre_tool_use("Bash", {}, "t")
    assert outcome.block == "no rm here"


async def test_other_exit_codes_are_non_blocking_errors_for_the_person(tmp_path):
    cmd = hook_script(tmp_path, "h", "sys.stderr.write('oops'); sys.exit(1)")
    outcome = await make_hooks(tmp_path, one("PreToolUse", cmd)).pre_tool_use("Bash", {}, "t")
    assert outcome.block is None and outcome.permission is None
    assert len(outcome.notices) == 1 and "exit 1" in outcome.notices[0]
    assert "oops" in outcome.notices[0]


async def test_json_output_is_read_on_exit_0(tmp_path):
    out = {
        "continue": False,
        "stopReason": "enough",
        "systemMessage": "hello person",
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "ask",
            "permissionDecisionReason": "check it",
            "updatedInput": {"command": "ls -la"},
        },
    }
    cmd = hook_script(tmp_path, "h", f"print(json.dumps({out!r}))")
    outcome = await make_hooks(tmp_path, one("PreToolUse", cmd)).pre_tool_use("Bash", {}, "t")
    assert outcome.stop == "enough"
    assert outcome.notices == ["hello person"]
    assert (outcome.permission, outcome.permission_reason) == ("ask", "check it")
    assert outcome.updated_input == {"command": "ls -la"}


async def test_json_is_ignored_when_the_exit_code_is_not_0(tmp_path):
    body = "print(json.dumps({'continue': False})); sys.exit(1)"
    cmd = hook_script(tmp_path, "h", body)
    outcome = await make_hooks(tmp_path, one("Stop", cmd)).stop(False)
    assert outcome.stop is None and outcome.notices


async def test_deny_beats_ask_beats_allow_across_hooks(tmp_path):
    def decision(value):
        out = {"hookSpecificOutput": {"permissionDecision": value}}
        return f"print(json.dumps({out!r}))"

    config = {
        "PreToolUse": [
            {"hooks": [{"command": hook_script(tmp_path, "a", decision("allow"))}]},
            {"hooks": [{"command": hook_script(tmp_path, "b", decision("deny"))}]},
            {"hooks": [{"command": hook_script(tmp_path, "c", decision("ask"))}]},
        ]
    }
    outcome = await make_hooks(tmp_path, config).pre_tool_use("Edit", {}, "t")
    assert outcome.permission == "deny"


async def test_matcher_is_a_regex_on_the_tool_name(tmp_path):
    cmd = hook_script(tmp_path, "h")
    hooks = make_hooks(tmp_path, one("PreToolUse", cmd, matcher="Edit|Write"))
    await hooks.pre_tool_use("Bash", {}, "t1")
    await hooks.pre_tool_use("Write", {}, "t2")
    await hooks.pre_tool_use("WriteMore", {}, "t3")  # the whole name must match
    assert [p["tool_use_id"] for p in payloads(tmp_path, "h")] == ["t2"]


async def test_a_hook_that_hangs_is_killed_at_its_timeout(tmp_path):
    marker = tmp_path / "child.pid"
    body = (
        "import subprocess, time\n"
        f"p = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)'])\n"
        f"open({str(marker)!r}, 'w').write(str(p.pid))\n"
        "time.sleep(600)"
    )
    cmd = hook_script(tmp_path, "h", body)
    hooks = make_hooks(tmp_path, one("Stop", cmd, timeout=0.5))
    outcome = await asyncio.wait_for(hooks.stop(False), 30)
    assert outcome.block is None
    assert any("timed out" in n for n in outcome.notices)
    pid = int(marker.read_text())
    # The hook's child was in its process group: it is killed too (gone, or a zombie).
    for _ in range(500):
        if _dead(pid):
            break
        await asyncio.sleep(0.01)
    assert _dead(pid)


def _dead(pid: int) -> bool:
    status = Path(f"/proc/{pid}/status")
    try:
        state = next(line for line in status.read_text().splitlines() if line.startswith("State"))
    except (FileNotFoundError, ProcessLookupError):
        return True
    return "Z" in state or "X" in state


async def test_plain_stdout_of_user_prompt_submit_is_context(tmp_path):
    cmd = hook_script(tmp_path, "h", "print('today is a holiday')")
    outcome = await make_hooks(tmp_path, one("UserPromptSubmit", cmd)).user_prompt_submit("hi")
    assert outcome.context == ["today is a holiday"]


async def test_session_and_notification_events(tmp_path):
    config = {}
    for event in ("SessionStart", "SessionEnd", "Notification"):
        config.update(one(event, hook_script(tmp_path, event)))
    hooks = make_hooks(tmp_path, config)
    await hooks.session_start("startup")
    hooks.notify("agentcli needs your permission to use Bash")
    await hooks.session_end("other")  # waits for the notification too
    assert payloads(tmp_path, "SessionStart")[0]["source"] == "startup"
    assert payloads(tmp_path, "SessionEnd")[0]["reason"] == "other"
    note = payloads(tmp_path, "Notification")[0]
    assert note["hook_event_name"] == "Notification" and "Bash" in note["message"]


async def test_no_hooks_is_a_no_op(tmp_path):
    hooks = make_hooks(tmp_path, {})
    assert not hooks.has(HookEvent.STOP)
    outcome = await hooks.stop(False)
    assert outcome.block is None and outcome.notices == []
    assert json.dumps(outcome.context) == "[]"


async def test_a_claude_code_hook_finds_its_script_by_claude_project_dir(tmp_path):
    """Claude Code's hooks name their scripts `"$CLAUDE_PROJECT_DIR"/.claude/hooks/...`."""
    folder = tmp_path / ".claude" / "hooks"
    folder.mkdir(parents=True)
    (folder / "check.sh").write_text("#!/bin/sh\necho 'from the project' >&2\nexit 2\n")
    (folder / "check.sh").chmod(0o755)
    cmd = '"$CLAUDE_PROJECT_DIR"/.claude/hooks/check.sh'
    outcome = await make_hooks(tmp_path, one("PreToolUse", cmd)).pre_tool_use("Bash", {}, "t")
    assert outcome.block == "from the project"
