"""The `sandbox` settings key and `--sandbox`: parsed, merged, shown, and never lost to a typo."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from agentcli.config.settings import CliSettings, load_settings
from agentcli.config.show import render_settings
from agentcli.wiring.bootstrap import sandbox_of


def _write(path: Path, data) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data))


@pytest.fixture
def user_file() -> Path:
    return Path(os.environ["AGENTCLI_HOME"]) / "settings.json"


def test_off_unless_something_turns_it_on(project):
    assert sandbox_of(load_settings(project)) is None


def test_keys_merge_per_key_with_their_source(project, user_file):
    _write(user_file, {"sandbox": {"enabled": True, "network": True}})
    _write(project / ".agentcli/settings.local.json", {"sandbox": {"network": False}})
    settings = load_settings(project)
    assert {k: (v.value, v.source) for k, v in settings.sandbox.items()} == {
        "enabled": (True, "user"),
        "network": (False, "local"),
    }
    sandbox = sandbox_of(settings)
    assert sandbox is not None and sandbox.network is False and sandbox.auto_allow_bash is True


def test_auto_allow_follows_claude_codes_name(project, user_file):
    _write(user_file, {"sandbox": {"enabled": True, "autoAllowBashIfSandboxed": False}})
    assert sandbox_of(load_settings(project)).auto_allow_bash is False


def test_the_flag_turns_it_on_from_the_command_line(project, user_file):
    _write(user_file, {"sandbox": {"enabled": False}})
    settings = load_settings(project, CliSettings(sandbox=True))
    assert (settings.sandbox["enabled"].value, settings.sandbox["enabled"].source) == (
        True,
        "command line",
    )
    assert sandbox_of(settings) is not None


@pytest.mark.parametrize(
    ("sandbox", "expected"),
    [
        ({"enabled": True, "excludedCommands": ["git"]}, "'sandbox.excludedCommands'"),
        ({"network": {"allowedDomains": ["x.org"]}}, "sandbox.network (line 1, column"),
        ({"enabled": [True]}, "sandbox.enabled"),
        ({"enabled": True, "autoAllowBashIfSandbox": True}, "'sandbox.autoAllowBashIfSandbox'"),
    ],
)
def test_a_key_we_do_not_support_is_named_and_the_rest_applies(
    project, user_file, sandbox, expected
):
    _write(user_file, {"sandbox": sandbox, "theme": "kept"})
    settings = load_settings(project)
    (named,) = settings.problems + settings.unsupported
    assert expected in named and "ignored" in named
    assert settings.theme.value == "kept"
    enabled = settings.sandbox.get("enabled")
    assert (enabled is not None and enabled.value is True) == (sandbox.get("enabled") is True)


def test_a_bad_rule_elsewhere_leaves_the_sandbox_on(project, user_file):
    _write(user_file, {"sandbox": {"enabled": True}, "permissions": {"allow": ["Bash(x"]}})
    settings = load_settings(project)
    assert "permissions.allow.0" in settings.problems[0]
    assert settings.sandbox["enabled"].value is True
    assert sandbox_of(settings) is not None


def test_config_shows_the_sandbox_and_where_it_came_from(project, user_file):
    _write(user_file, {"sandbox": {"enabled": True, "network": False}})
    text = render_settings(load_settings(project, CliSettings(sandbox=True)))
    assert "  sandbox.enabled = true  (command line)" in text
    assert "  sandbox.network = false  (user)" in text


def test_agentcli_config_takes_the_flag(project):
    done = subprocess.run(
        [sys.executable, "-m", "agentcli", "config", "--sandbox"],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 0, done.stderr
    assert "sandbox.enabled = true  (command line)" in done.stdout
