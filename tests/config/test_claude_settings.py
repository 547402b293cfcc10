"""Claude Code's settings files beside agentcli's: where they are read, their precedence,
one notice per key agentcli cannot use (the rest of the file applies), fail-closed only
for a `permissions` block that cannot be read, folder trust, and the switch to ignore them.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from agentcli.commands.settings_report import md, settings_files_lines
from agentcli.config.settings import CliSettings, load_settings, settings_files
from agentcli.config.show import render_settings


def _write(path: Path, data) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data, indent=2))
    return path


def _layer(settings, name):
    return next(layer for layer in settings.layers if layer.name == name)


@pytest.fixture
def places(project):
    home = Path(os.environ["HOME"])
    return {
        "claude user": home / ".claude" / "settings.json",
        "user": Path(os.environ["AGENTCLI_HOME"]) / "settings.json",
        "claude project": project / ".claude" / "settings.json",
        "project": project / ".agentcli" / "settings.json",
        "claude local": project / ".claude" / "settings.local.json",
        "local": project / ".agentcli" / "settings.local.json",
    }


def test_the_six_files_in_their_order(project, places):
    assert [(s.name, s.path) for s in settings_files(project.resolve())] == [
        (name, path if name in ("claude user", "user") else path.resolve())
        for name, path in places.items()
    ]


@pytest.mark.parametrize("name", ["claude user", "claude project", "claude local"])
def test_each_claude_code_file_is_read(project, places, name):
    _write(places[name], {"permissions": {"deny": ["Bash(rm:*)"], "allow": ["Read"]}})
    settings = load_settings(project)
    assert settings.problems == [] and settings.uncertain == []
    assert [(str(r), s) for r, s in settings.deny] == [("Bash(rm:*)", name)]
    assert [(str(r), s) for r, s in settings.allow] == [("Read", name)]
    assert _layer(settings, name).status == "loaded"


def test_claude_config_dir_moves_the_user_file(project, places, tmp_path, monkeypatch):
    _write(places["claude user"], {"permissions": {"deny": ["Read(./a)"]}})
    elsewhere = _write(tmp_path / "cc" / "settings.json", {"permissions": {"deny": ["Read(./b)"]}})
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "cc"))
    settings = load_settings(project)
    assert [str(r) for r in settings.rules("deny")] == ["Read(./b)"]
    assert _layer(settings, "claude user").path == elsewhere


def test_agentcli_wins_at_the_same_place_lists_merge_and_places_keep_their_order(project, places):
    _write(places["claude user"], {"model": "cu", "env": {"A": "cu", "B": "cu"}})
    _write(places["user"], {"env": {"A": "u"}})
    _write(
        places["claude project"],
        {
            "model": "cp",
            "theme": "t-cp",
            "permissions": {"deny": ["Bash(rm:*)"], "allow": ["Read"]},
        },
    )
    _write(
        places["project"],
        {"model": "p", "permissions": {"allow": ["Edit"], "defaultMode": "acceptEdits"}},
    )
    _write(places["claude local"], {"theme": "t-cl", "permissions": {"defaultMode": "plan"}})
    settings = load_settings(project)
    assert settings.problems == []
    assert (settings.model.value, settings.model.source) == ("p", "project")
    # a higher place beats a lower one, Claude Code's file or not
    assert (settings.theme.value, settings.theme.source) == ("t-cl", "claude local")
    assert (settings.default_mode.value, settings.default_mode.source) == ("plan", "claude local")
    assert (settings.env["A"].value, settings.env["B"].value) == ("u", "cu")
    assert [(str(r), s) for r, s in settings.allow] == [
        ("Read", "claude project"),
        ("Edit", "project"),
    ]
    assert [str(r) for r in settings.rules("deny")] == ["Bash(rm:*)"]
    # where both files of one place set a key, the Claude Code file says who won
    assert _layer(settings, "claude project").shadowed == ["model"]
    assert _layer(settings, "claude user").shadowed == ["env.A"]
    lines = "\n".join(settings_files_lines(settings))
    assert f"`{places['project'].resolve()}` wins for: model" in lines


def test_an_unknown_key_is_a_notice_with_its_place_and_the_rest_applies(project, places):
    text = (
        '{\n  "permissions": {"deny": ["Bash(rm:*)"]},\n  "modle": "x",\n'
        '  "hooks": {\n    "SubagentStop": [{"hooks": [{"type": "command", "command": "a"}]}],\n'
        '    "PreToolUse": [{"matcher": "Bash", "hooks": [{"command": "./guard.sh"}]}],\n'
        '    "PreToolUs": []\n  },\n  "spinnerTipsEnabled": false,\n  "env": {"A": "1"}\n}'
    )
    path = _write(places["claude project"], text)
    settings = load_settings(project)
    layer = _layer(settings, "claude project")
    assert layer.status == "loaded" and settings.uncertain == []
    assert [str(r) for r in settings.rules("deny")] == ["Bash(rm:*)"]
    assert [h.command for h in settings.hooks.PreToolUse[0].hooks] == ["./guard.sh"]
    assert settings.env_values() == {"A": "1"}
    assert f"{path}: unknown key 'modle' (line 3, column 3); ignored" in settings.problems
    assert f"{path}: unknown hook event 'PreToolUs' (line 7, column 5); ignored" in (
        settings.problems
    )
    # SubagentStop is one of the events agentcli runs now: it loads, not a notice.
    assert [h.command for h in settings.hooks.SubagentStop[0].hooks] == ["a"]
    (unsupported,) = settings.unsupported
    assert unsupported.startswith(f"{path}: Claude Code settings agentcli does not use, ignored:")
    assert "SubagentStop" not in unsupported
    assert "'spinnerTipsEnabled' (line 9, column 3)" in unsupported


@pytest.mark.parametrize(
    ("data", "notice"),
    [
        ({"model": 3}, "model (line 2, column 3): Input should be a valid string"),
        ({"permissions": {"allow": ["Bash(oops"]}}, "permissions.allow.0 (line 4, column 7)"),
        ({"permissions": {"defaultMode": "dontAsk"}}, "permissions.defaultMode (line 3"),
        ({"sandbox": {"network": {"allowUnixSockets": []}}}, "sandbox.network (line 3"),
        ({"env": {"B": 2}}, "env.B (line 3, column 5)"),
        ({"hooks": {"Stop": [{"hooks": [{"command": "x", "timeout": -1}]}]}}, "hooks.Stop.0"),
    ],
)
def test_a_wrong_value_drops_that_key_only(project, places, data, notice):
    data = {**data, "theme": "kept"}
    data.setdefault("env", {}).setdefault("A", "kept")
    path = _write(places["claude local"], data)
    settings = load_settings(project)
    (problem,) = settings.problems
    assert problem.startswith(f"{path}: ") and notice in problem and problem.endswith("; ignored")
    assert settings.theme.value == "kept" and settings.env["A"].value == "kept"
    assert settings.uncertain == []


def test_one_bad_deny_rule_fails_closed_and_the_good_ones_still_deny(project, places):
    path = _write(
        places["claude project"],
        {"permissions": {"deny": ["Bash(rm:*)", "Bash(oops"], "allow": ["Bash"]}, "model": "m"},
    )
    settings = load_settings(project)
    assert settings.uncertain == [f"the deny and ask rules in {path} could not be read"]
    assert [str(r) for r in settings.rules("deny")] == ["Bash(rm:*)"]
    assert settings.rules("allow") == []  # the block that lost protection enables nothing
    assert settings.model.value == "m"  # the rest of the file applies


@pytest.mark.parametrize(
    "permissions", [["deny", "Bash(rm:*)"], "Bash(rm:*)", {"ask": {"Bash": "rm"}}, {"deny": 3}]
)
def test_a_permissions_block_that_cannot_be_read_fails_closed(project, places, permissions):
    _write(places["user"], {"permissions": {"deny": ["Read(./.env)"]}})
    path = _write(places["claude project"], {"permissions": permissions, "theme": "t"})
    settings = load_settings(project)
    assert settings.uncertain == [f"the deny and ask rules in {path} could not be read"]
    assert [str(r) for r in settings.rules("deny")] == ["Read(./.env)"]
    assert settings.theme.value == "t"
    assert _layer(settings, "claude project").uncertain


@pytest.mark.parametrize("permissions", [None, [], "", {"deny": None, "ask": []}])
def test_an_empty_permissions_block_is_no_rules_not_uncertainty(project, places, permissions):
    _write(places["claude project"], {"permissions": permissions})
    assert load_settings(project).uncertain == []


def test_bad_json_in_a_claude_code_file_skips_it_and_fails_closed(project, places):
    path = _write(places["claude local"], '{"permissions": {"deny": ["Bash(rm:*)"],}}')
    settings = load_settings(project)
    assert _layer(settings, "claude local").status == "skipped"
    assert settings.uncertain == [f"the deny and ask rules in {path} could not be read"]


def test_an_untrusted_folder_s_claude_code_files_only_protect(project, places):
    guard = {"matcher": "Bash", "hooks": [{"type": "command", "command": "./run-me.sh"}]}
    _write(
        places["claude project"],
        {
            "permissions": {
                "deny": ["Bash(rm:*)"],
                "allow": ["Bash"],
                "defaultMode": "bypassPermissions",
            },
            "hooks": {"PreToolUse": [guard]},
            "env": {"EVIL": "1"},
        },
    )
    _write(places["claude local"], {"permissions": {"ask": ["Bash(git push:*)"]}})
    settings = load_settings(project, trusted=False)
    assert [str(r) for r in settings.rules("deny")] == ["Bash(rm:*)"]
    assert [str(r) for r in settings.rules("ask")] == ["Bash(git push:*)"]
    assert settings.rules("allow") == [] and settings.env == {} and settings.hooks.is_empty()
    assert settings.default_mode is None
    withheld = {(item.key, item.value, item.source) for item in settings.withheld}
    assert ("hooks", "PreToolUse [Bash]: ./run-me.sh", "claude project") in withheld
    assert ("permissions.defaultMode", "bypassPermissions", "claude project") in withheld
    assert ("env", "EVIL=1", "claude project") in withheld


def test_the_user_s_claude_code_file_applies_in_a_folder_not_trusted(project, places):
    _write(places["claude user"], {"env": {"MINE": "1"}, "permissions": {"allow": ["Read"]}})
    settings = load_settings(project, trusted=False)
    assert settings.env_values() == {"MINE": "1"} and settings.withheld == []


@pytest.mark.parametrize("how", ["env", "user file"])
def test_the_switch_leaves_claude_code_files_apart(project, places, monkeypatch, how):
    for name in ("claude user", "claude project", "claude local"):
        _write(places[name], {"permissions": {"deny": [f"Read(./{name[7:]})"]}})
    if how == "env":
        monkeypatch.setenv("AGENTCLI_IGNORE_CLAUDE_SETTINGS", "1")
    else:
        _write(places["user"], {"claudeCodeSettings": False})
    settings = load_settings(project)
    assert settings.rules("deny") == [] and settings.problems == []
    assert [layer.name for layer in settings.layers] == ["user", "project", "local"]
    why = "AGENTCLI_IGNORE_CLAUDE_SETTINGS=1" if how == "env" else str(places["user"])
    assert why in settings.claude_ignored
    assert why in render_settings(settings) and md(why) in "\n".join(settings_files_lines(settings))


def test_a_project_cannot_switch_off_the_user_s_claude_code_file(project, places):
    _write(places["claude user"], {"permissions": {"deny": ["Bash(rm:*)"]}})
    shared = _write(places["project"], '{"claudeCodeSettings": false}')
    local = _write(places["local"], '{"claudeCodeSettings": false}')
    settings = load_settings(project)
    assert [str(r) for r in settings.rules("deny")] == ["Bash(rm:*)"]
    assert settings.claude_ignored is None
    for path in (shared, local):
        notice = f"{path}: claudeCodeSettings (line 1, column 2): read only from"
        assert any(p.startswith(notice) for p in settings.problems)


def test_a_setting_sources_list_takes_both_files_of_each_place(project, places):
    _write(places["claude user"], {"permissions": {"deny": ["Read(./u)"]}})
    _write(places["claude project"], {"permissions": {"deny": ["Read(./p)"]}})
    settings = load_settings(project, sources=["project"])
    assert [str(r) for r in settings.rules("deny")] == ["Read(./p)"]
    assert [layer.name for layer in settings.layers] == ["claude project", "project"]


def test_the_same_file_at_two_places_is_read_once(places, monkeypatch):
    home = Path(os.environ["HOME"])
    _write(places["claude user"], {"permissions": {"allow": ["Read"]}})
    settings = load_settings(home)  # the home folder as a project: ~/.claude is both
    assert [s for _r, s in settings.allow] == ["claude user"]
    assert "same file as" in _layer(settings, "claude project").status


def test_status_and_config_show_each_file_and_what_it_gave(project, places):
    _write(places["claude user"], {"statusLineX": 1, "env": {"A": "1"}})
    _write(
        places["claude project"],
        {"permissions": {"deny": ["Bash(rm:*)"], "allow": ["Read", "Edit"]}, "hooks": {}},
    )
    settings = load_settings(project, CliSettings())
    lines = "\n".join(settings_files_lines(settings))
    assert f"claude project `{places['claude project'].resolve()}`: loaded" in lines
    assert "gives permissions.allow (2), permissions.deny (1)" in lines
    assert f"claude user `{places['claude user']}`: loaded, gives env (1)" in lines
    assert "unknown key 'statusLineX' (line 2, column 3)" in lines
    assert f"claude local `{places['claude local'].resolve()}`: not found" in lines
    text = render_settings(settings)
    assert "Bash(rm:*)  (claude project)" in text and 'A = "1"  (claude user)' in text
    assert "gives permissions.allow (2), permissions.deny (1)" in text


def test_claude_code_files_answer_for_mcp_json_servers_by_their_place(project, places):
    from agentcli.mcp.config.servers import load_mcp_servers

    servers = {"db": {"command": "db-mcp"}, "web": {"type": "http", "url": "http://w"}}
    _write(project / ".mcp.json", {"mcpServers": servers})

    def approved():
        found = load_mcp_servers(project.resolve(), trusted=True).servers
        return {name: server.approved for name, server in found.items()}

    # the repository's own Claude Code file may say no, never yes
    _write(
        places["claude project"],
        {"enableAllProjectMcpServers": True, "disabledMcpjsonServers": ["web"]},
    )
    assert approved() == {"db": False}
    _write(places["claude local"], {"enabledMcpjsonServers": ["db"]})  # yours: yes
    assert approved() == {"db": True}


def test_writing_a_claude_code_settings_file_always_asks(project, tmp_path, monkeypatch):
    from agentcli.config.special_paths import special_path_reason

    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "cc"))
    elsewhere = (tmp_path / "cc" / "settings.json").resolve()
    reason = special_path_reason(elsewhere, project.resolve(), writing=True)
    assert reason == "it changes agentcli's settings"
