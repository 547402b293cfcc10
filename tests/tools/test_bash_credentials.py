"""The processes agentcli starts do not see its credentials unless a setting passes them on.

Through the real Bash tool, a real hook and a real `!command`: `env` is what
the child would print to the model (or the conversation).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from agentcli.config.hooks import HookCommand
from agentcli.core.abort import AbortSignal
from agentcli.frontends.tui.shell_mode import ShellRun
from agentcli.hooks.runner import run_hook
from agentcli.tools.base import ToolContext, Workspace
from agentcli.tools.bash import BashInput, BashTool

KEY = "sk-ant-do-not-leak"
TOKEN = "token-do-not-leak"
PASS_ON = {"ANTHROPIC_API_KEY": "${ANTHROPIC_API_KEY}"}


@pytest.fixture(autouse=True)
def credentials(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    monkeypatch.setenv("ANTHROPIC_AUTH_TOKEN", TOKEN)


async def _bash(tmp_path: Path, command: str, env: dict[str, str] | None = None) -> str:
    root = tmp_path / "project"
    root.mkdir(exist_ok=True)
    ws = Workspace(root, env=env or {}, scratch_dir=tmp_path / "scratch")
    result = await BashTool().run(BashInput(command=command), ToolContext(ws, AbortSignal()))
    assert not result.is_error, result.content
    return str(result.content)


@pytest.mark.parametrize(
    "command", ["env", "printenv", "echo $ANTHROPIC_API_KEY $ANTHROPIC_AUTH_TOKEN"]
)
async def test_bash_does_not_see_the_credentials(tmp_path, command):
    output = await _bash(tmp_path, command)
    assert KEY not in output and TOKEN not in output


async def test_bash_still_sees_the_rest_of_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("MY_OWN_VARIABLE", "kept")
    assert "MY_OWN_VARIABLE=kept" in await _bash(tmp_path, "env")


async def test_a_setting_that_names_the_key_passes_it_to_bash(tmp_path):
    output = await _bash(tmp_path, "printenv ANTHROPIC_API_KEY; env", env=PASS_ON)
    assert output.startswith(KEY + "\n")
    assert TOKEN not in output  # only what the setting names


async def test_a_hook_does_not_see_the_credentials_unless_passed_on(tmp_path):
    hook = HookCommand(type="command", command="env")
    plain = await run_hook(hook, {}, tmp_path)
    passed = await run_hook(hook, {}, tmp_path, env=PASS_ON)
    assert plain.exit_code == 0 and KEY not in plain.stdout and TOKEN not in plain.stdout
    assert f"ANTHROPIC_API_KEY={KEY}" in passed.stdout and TOKEN not in passed.stdout


async def test_a_bang_command_does_not_see_the_credentials_unless_passed_on(tmp_path):
    plain, _ = await ShellRun("env", tmp_path).run(lambda _text: None)
    passed, _ = await ShellRun("env", tmp_path, env=PASS_ON).run(lambda _text: None)
    assert KEY not in plain and TOKEN not in plain
    assert f"ANTHROPIC_API_KEY={KEY}" in passed and TOKEN not in passed


async def test_a_bang_command_gets_the_settings_env_like_the_tools(tmp_path):
    output, _ = await ShellRun(
        f"{sys.executable} -c 'import os; print(os.environ[\"NODE_ENV\"])'",
        tmp_path,
        env={"NODE_ENV": "test"},
    ).run(lambda _text: None)
    assert output == "test\n"
