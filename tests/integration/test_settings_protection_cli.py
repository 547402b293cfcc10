"""The issue's scenario, for real: a project's deny rule must hold under `--allowedTools Bash`.

`"deny": "Bash(rm:*)"` (a string, not a list) used to skip the whole project
file, deny rule included, and `rm` ran. Now the string is read as a one-rule
list; and a deny file that cannot be read at all fails closed: nothing runs
without asking, and a headless run (which cannot ask) refuses.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fakeapi import reply, text, tool_use
from tests.integration.test_headless_cli import agentcli


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / ".agentcli").mkdir(parents=True)
    (root / "precious.txt").write_text("keep me\n")
    return root


def _script_rm(server) -> None:
    server.enqueue(reply(tool_use("Bash", {"command": "rm precious.txt"})))
    server.enqueue(reply(text("Done.")))


def _tool_result(server) -> dict:
    return server.requests[1].body["messages"][-1]["content"][0]


def test_a_deny_rule_written_as_a_string_holds(fake_api, project):
    (project / ".agentcli" / "settings.json").write_text('{"permissions": {"deny": "Bash(rm:*)"}}')
    _script_rm(fake_api)

    done = agentcli(["-p", "delete it", "--allowedTools", "Bash"], project, fake_api)

    assert (project / "precious.txt").exists()
    result = _tool_result(fake_api)
    assert result["is_error"] is True and "denied by the rule Bash(rm:*)" in result["content"]
    assert done.returncode == 0 and done.stderr == ""  # a clear meaning is not a problem


def test_a_deny_file_with_broken_json_fails_closed(fake_api, project):
    settings = project / ".agentcli" / "settings.json"
    settings.write_text('{"permissions": {"deny": ["Bash(rm:*)"],}}')  # trailing comma
    _script_rm(fake_api)

    done = agentcli(["-p", "delete it", "--allowedTools", "Bash"], project, fake_api)

    assert (project / "precious.txt").exists()
    result = _tool_result(fake_api)
    assert result["is_error"] is True and str(settings) in result["content"]
    assert str(settings) in done.stderr and "line 1, column 41" in done.stderr
    assert "protection uncertain" in done.stderr.lower()
    assert "every tool call asks" in done.stderr


def test_bypass_mode_does_not_lift_the_lock(fake_api, project):
    (project / ".agentcli" / "settings.json").write_bytes(b'{"permissions": {"deny": ["\xff"]}}')
    _script_rm(fake_api)

    done = agentcli(
        ["-p", "delete it", "--permission-mode", "bypassPermissions"], project, fake_api
    )

    assert (project / "precious.txt").exists()
    assert "cannot read" in done.stderr and "bypassPermissions" in done.stderr
