"""A plugin folder loaded by the real binary with `--plugin-dir`, against the fake API.

`/plugin` lists what the plugin brought under Claude Code's names; its command
runs as `/kit:hello`; its MCP server `plugin:kit:echo` is not started until the
person says yes (stderr says how), and once approved its tool
`mcp__plugin_kit_echo__echo` is called; its PostToolUse hook runs its script
through `${CLAUDE_PLUGIN_ROOT}`.
"""

from __future__ import annotations

import json
from pathlib import Path

from agentcli.config.settings import settings_files
from tests.fakeapi import reply, text, tool_use
from tests.integration.test_mcp_cli import agentcli, tool_result_of
from tests.plugins.support import make_plugin, write_settings


def user_settings(project: Path, data: dict) -> None:
    path = next(s.path for s in settings_files(project) if s.name == "user")
    write_settings(path, data)


def test_plugin_lists_what_a_plugin_dir_brought_and_its_server_waits_for_a_yes(fake_api, tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    kit = make_plugin(tmp_path / "kit")

    done = agentcli(["-p", "/plugin", "--plugin-dir", str(kit)], project, fake_api)

    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "**kit** 1.2.0 — A test kit" in out and "from --plugin-dir" in out
    for name in (
        "`/kit:hello`",
        "`kit:helper`",
        "`kit:tidy`",
        "`plugin:kit:echo (needs approval)`",
    ):
        assert name in out
    assert "PostToolUse [Write]: sh " + str(kit.resolve()) + "/scripts/mark.sh" in out
    (warning,) = [line for line in done.stderr.splitlines() if "not approved" in line]
    assert "plugins' server plugin:kit:echo" in warning
    assert fake_api.requests == []  # /plugin asks no model


def test_a_plugins_command_server_and_hook_work_in_a_run(fake_api, tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    kit = make_plugin(tmp_path / "kit")
    user_settings(project, {"enabledMcpjsonServers": ["plugin:kit:echo"]})  # the person's yes
    fake_api.enqueue(reply(tool_use("mcp__plugin_kit_echo__echo", {"text": "ping"})))
    fake_api.enqueue(
        reply(tool_use("Write", {"file_path": str(project / "a.txt"), "content": "x"}))
    )
    fake_api.enqueue(reply(text("Done.")))
    allowed = ["--allowedTools", "mcp__plugin_kit_echo__echo", "Write"]

    done = agentcli(
        ["-p", "/kit:hello world", "--plugin-dir", str(kit), *allowed, "--output-format", "json"],
        project,
        fake_api,
    )

    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["result"] == "Done."
    first = fake_api.requests[0].body
    assert first["messages"][0]["content"][0]["text"].startswith("Say hello to world")
    assert "mcp__plugin_kit_echo__echo" in [tool["name"] for tool in first["tools"]]
    result = tool_result_of(fake_api.requests[1].body)
    assert "ping" in json.dumps(result["content"]) and not result.get("is_error")
    assert (project / "hook-ran.txt").read_text() == "hooked\n"  # the plugin's hook ran
