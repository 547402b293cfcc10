"""`agentcli config`, the real binary, with a team's Claude Code setup in the project."""

from __future__ import annotations

import json
import os
from pathlib import Path

from tests.fakeapi import reply, text, tool_use
from tests.hooks.helpers import hook_script
from tests.integration.test_headless_cli import agentcli
from tests.support.cli import agentcli_env, run_agentcli


def test_agentcli_config_reads_claude_code_files(project):
    """Its output and exit code: what each file gives, and what is not used (no mistake,
    so the exit code stays 0)."""
    claude = project / ".claude" / "settings.json"
    claude.parent.mkdir()
    claude.write_text(
        json.dumps({"permissions": {"deny": ["Bash(rm:*)"]}, "includeCoAuthoredBy": False})
    )
    done = run_agentcli(["config"], project, agentcli_env())
    assert done.returncode == 0, done.stderr
    assert "Bash(rm:*)  (claude project)" in done.stdout
    assert "Claude Code settings agentcli does not use, ignored:" in done.stdout
    assert "'includeCoAuthoredBy' (line 1, column 43)" in done.stdout
    assert "gives permissions.deny (1)" in done.stdout


def test_a_user_file_with_keys_agentcli_lacks_still_guards_a_headless_run(fake_api, project):
    """The issue's case: ~/.claude/settings.json with a status line, a hook event agentcli
    may not run and Claude Code-only keys. Its PreToolUse hook and deny rule still hold."""
    hooks_dir = project.parent / "hooks"
    hooks_dir.mkdir()
    guard = hook_script(hooks_dir, "guard", "sys.stderr.write('guarded'); sys.exit(2)")
    user = Path(os.environ["HOME"]) / ".claude" / "settings.json"
    user.parent.mkdir()
    user.write_text(
        json.dumps(
            {
                "statusLine": {"type": "command", "command": "echo hi"},
                "spinnerTipsEnabled": False,
                "hooks": {
                    "PostToolUseFailure": [{"hooks": [{"type": "command", "command": "true"}]}],
                    "PreToolUse": [{"matcher": "Write", "hooks": [{"command": guard}]}],
                },
                "permissions": {"deny": ["Bash(rm:*)"]},
            }
        )
    )
    (project / "x").write_text("keep me")
    fake_api.enqueue(reply(tool_use("Bash", {"command": "rm x"})))
    fake_api.enqueue(reply(tool_use("Write", {"file_path": "a.txt", "content": "x"})))
    fake_api.enqueue(reply(text("done")))

    done = agentcli(["-p", "go", "--permission-mode", "bypassPermissions"], project, fake_api)

    assert done.returncode == 0, done.stderr
    assert (project / "x").exists() and not (project / "a.txt").exists()
    sent = json.dumps(fake_api.requests[2].body["messages"])
    assert "guarded" in sent and "Bash(rm:*)" in sent
    assert "skipped" not in done.stderr and "unknown" not in done.stderr
    # A Claude Code key agentcli does not use is no mistake: no warning on every -p run.
    assert "spinnerTipsEnabled" not in done.stderr


def test_claude_code_keys_agentcli_does_not_use_are_a_note_only_with_verbose(fake_api, project):
    user = Path(os.environ["HOME"]) / ".claude" / "settings.json"
    user.parent.mkdir(exist_ok=True)
    user.write_text(json.dumps({"spinnerTipsEnabled": False, "modle": "x"}))
    fake_api.default = reply(text("done"))

    quiet = agentcli(["-p", "go"], project, fake_api)
    verbose = agentcli(["-p", "go", "--verbose"], project, fake_api)

    assert quiet.returncode == verbose.returncode == 0
    assert "spinnerTipsEnabled" not in quiet.stderr
    assert "warning: settings:" in quiet.stderr and "'modle'" in quiet.stderr  # a mistake
    assert "note: settings:" in verbose.stderr and "spinnerTipsEnabled" in verbose.stderr
