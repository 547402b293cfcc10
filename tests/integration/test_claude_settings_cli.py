"""`agentcli config`, the real binary, with a team's Claude Code setup in the project."""

from __future__ import annotations

import json

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
