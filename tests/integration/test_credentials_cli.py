"""`agentcli -p`: the model's commands never see the API key agentcli talks to it with."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.integration.bash_run import KEY, run_bash
from tests.support.projects import new_project


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return new_project(tmp_path)  # empty: not this folder's project with config.py


def test_bash_env_and_printenv_do_not_show_the_key(fake_api, project):
    run = run_bash(
        fake_api,
        project,
        ["env", "printenv ANTHROPIC_API_KEY; echo exit=$?", "echo [$ANTHROPIC_API_KEY]"],
        ["--allowedTools", "Bash"],
    )
    assert run.done.returncode == 0, run.done.stderr
    assert len(run.results) == 3
    assert "PATH=" in run.output(0) and KEY not in run.output(0)
    assert run.output(1).strip() == "exit=1"
    assert run.output(2).strip() == "[]"
    assert KEY in fake_api.requests[0].headers["authorization"]  # agentcli itself still has it


def test_a_settings_env_entry_passes_the_key_on(fake_api, project):
    run = run_bash(
        fake_api,
        project,
        ["printenv ANTHROPIC_API_KEY"],
        ["--allowedTools", "Bash"],
        settings={"env": {"ANTHROPIC_API_KEY": "${ANTHROPIC_API_KEY}"}},
    )
    assert run.done.returncode == 0, run.done.stderr
    assert run.output(0).strip() == KEY
