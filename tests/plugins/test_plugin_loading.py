"""Plugins load as Claude Code's do, each part through agentcli's own loader, in process.

A plugin folder (tests/plugins/support.py) from `--plugin-dir` brings a command
`/kit:hello`, an agent `kit:helper`, a skill `kit:tidy`, a hook with
`${CLAUDE_PLUGIN_ROOT}` filled in and an MCP server `plugin:kit:echo` (tools
`mcp__plugin_kit_echo__*`) that waits for a yes as a `.mcp.json` one does.
`enabledPlugins` loads one from a local marketplace; a project's settings in a
folder not trusted load none. The real binary runs a plugin in
tests/integration/test_plugins_cli.py.
"""

from __future__ import annotations

from pathlib import Path

from agentcli.agents.definitions import load_agents
from agentcli.commands.command_files import load_command_files
from agentcli.config.settings import load_settings, settings_files
from agentcli.mcp.config.approval import approve_project_servers
from agentcli.mcp.names import api_names
from agentcli.plugins.enabled import load_plugins
from agentcli.plugins.hooks import plugin_hooks
from agentcli.plugins.places import Places
from agentcli.plugins.servers import plugin_servers
from agentcli.skills.loader import load_skills, read_rules
from tests.plugins.support import make_marketplace, make_plugin, write, write_settings


def settings_path(project: Path, layer: str) -> Path:
    return next(s.path for s in settings_files(project) if s.name == layer)


def test_a_plugin_dir_brings_each_part_under_the_plugins_name(tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    kit = make_plugin(tmp_path / "kit")

    found = load_plugins(project, [str(kit)], None)

    assert found.problems == ()
    (plugin,) = found.plugins
    assert (plugin.name, plugin.version, plugin.source) == ("kit", "1.2.0", "--plugin-dir")
    places = Places(plugins=found.plugins)
    commands = load_command_files(project, places=places)
    assert [c.name for c in commands.commands] == ["kit:hello"]
    assert commands.commands[0].scope == "plugin kit"
    agents = load_agents(project, places)
    helper = agents.get("kit:helper")
    assert helper is not None and helper.tools == ("Read",)
    assert helper.system_prompt == "You are the kit's helper."
    skills = load_skills(project, places)
    assert [s.name for s in skills.skills] == ["kit:tidy"]
    assert read_rules(skills.skills)[0].specifier == f"/{kit.resolve() / 'skills' / 'tidy'}/**"
    hooks = plugin_hooks(found.plugins)
    (command,) = [hook.command for m in hooks.config.PostToolUse for hook in m.hooks]
    assert command == f"sh {kit.resolve()}/scripts/mark.sh hook-ran.txt"
    assert hooks.sources[0][3] == "plugin kit"


def test_a_plugins_mcp_server_is_named_as_claude_code_names_it_and_waits_for_a_yes(tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    kit = make_plugin(tmp_path / "kit")
    found = load_plugins(project, [str(kit)], None)

    servers, problems = plugin_servers(found.plugins, project)

    assert problems == []
    (server,) = servers
    assert server.name == "plugin:kit:echo" and server.scope == "plugin"
    assert not server.approved  # asked first, as a .mcp.json server
    assert server.spec.env["KIT_ROOT"] == str(kit.resolve())  # ${CLAUDE_PLUGIN_ROOT}
    assert server.spec.env["CLAUDE_PLUGIN_ROOT"] == str(kit.resolve())
    assert api_names([("plugin:kit:echo", "echo")]) == {
        ("plugin:kit:echo", "echo"): "mcp__plugin_kit_echo__echo"
    }

    approve_project_servers(project, [server.name], {server.name: server.spec})
    (again,), _ = plugin_servers(found.plugins, project)
    assert again.approved


def test_a_plugins_server_that_changes_after_a_yes_is_asked_about_again(tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    kit = make_plugin(tmp_path / "kit")
    found = load_plugins(project, [str(kit)], None)
    (server,), _ = plugin_servers(found.plugins, project)
    approve_project_servers(project, [server.name], {server.name: server.spec})

    write(kit / ".mcp.json", '{"mcpServers": {"echo": {"command": "sh", "args": ["-c", "evil"]}}}')
    (changed,), _ = plugin_servers(load_plugins(project, [str(kit)], None).plugins, project)

    assert not changed.approved


def test_enabled_plugins_load_from_a_local_marketplace(tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    market = make_marketplace(tmp_path / "market", {"kit": "./plugins/kit"})
    make_plugin(market / "plugins" / "kit")
    write_settings(
        settings_path(project, "user"),
        {
            "enabledPlugins": {"kit@local-market": True},
            "extraKnownMarketplaces": {
                "local-market": {"source": {"source": "directory", "path": str(market)}}
            },
        },
    )

    found = load_plugins(project, [], load_settings(project, trusted=True))

    assert found.problems == ()
    (plugin,) = found.plugins
    assert plugin.name == "kit" and plugin.source == "kit@local-market (user)"
    assert plugin.root == (market / "plugins" / "kit").resolve()


def test_a_higher_layer_turns_off_what_a_lower_one_enabled(tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    market = make_marketplace(tmp_path / "market", {"kit": "./plugins/kit"})
    make_plugin(market / "plugins" / "kit")
    source = {"local-market": {"source": {"source": "directory", "path": str(market)}}}
    user = {"enabledPlugins": {"kit@local-market": True}, "extraKnownMarketplaces": source}
    write_settings(settings_path(project, "user"), user)
    write_settings(settings_path(project, "local"), {"enabledPlugins": {"kit@local-market": False}})

    found = load_plugins(project, [], load_settings(project, trusted=True))

    assert found.plugins == ()


def test_an_untrusted_projects_enabled_plugins_are_withheld(tmp_path):
    project = tmp_path / "project"
    market = make_marketplace(project / "market", {"kit": "./kit"})
    make_plugin(market / "kit")
    write_settings(
        settings_path(project, "project"),
        {
            "enabledPlugins": {"kit@local-market": True},
            "extraKnownMarketplaces": {
                "local-market": {"source": {"source": "directory", "path": "./market"}}
            },
        },
    )

    untrusted = load_settings(project, trusted=False)
    trusted = load_settings(project, trusted=True)

    assert load_plugins(project, [], untrusted).plugins == ()
    withheld = {item.key for item in untrusted.withheld}
    assert {"enabledPlugins", "extraKnownMarketplaces"} <= withheld  # the trust question
    assert [p.name for p in load_plugins(project, [], trusted).plugins] == ["kit"]


def test_a_remote_marketplace_or_plugin_source_is_a_problem_and_nothing_is_fetched(tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    market = tmp_path / "market"
    write(
        market / ".claude-plugin" / "marketplace.json",
        '{"name": "m", "owner": {"name": "x"}, "plugins": '
        '[{"name": "far", "source": {"source": "github", "repo": "someone/far"}}]}',
    )
    write_settings(
        settings_path(project, "user"),
        {
            "enabledPlugins": {"far@m": True, "other@gh": True},
            "extraKnownMarketplaces": {
                "m": {"source": {"source": "directory", "path": str(market)}},
                "gh": {"source": {"source": "github", "repo": "someone/market"}},
            },
        },
    )

    found = load_plugins(project, [], load_settings(project, trusted=True))

    assert found.plugins == ()
    far, other = found.problems
    assert "far@m" in far and "does not fetch" in far
    assert "other@gh" in other and "not on disk" in other


def test_a_broken_plugin_is_one_problem_and_the_others_load(tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    broken = tmp_path / "broken"
    write(broken / ".claude-plugin" / "plugin.json", "{not json")
    outside = make_plugin(tmp_path / "outside", commands="../elsewhere")
    kit = make_plugin(tmp_path / "kit2", name="kit2")

    found = load_plugins(
        project, [str(broken), str(tmp_path / "missing"), str(kit), str(outside)], None
    )

    assert [p.name for p in found.plugins] == ["kit2", "kit"]
    problems = " | ".join(found.problems)
    assert "cannot be read" in problems and "no such folder" in problems
    assert "'../elsewhere' must start with ./" in problems


def test_hooks_are_not_written_with_a_plugin_root_a_shell_would_misread(tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    kit = make_plugin(tmp_path / "a kit; rm -rf ~")

    found = load_plugins(project, [str(kit)], None)
    hooks = plugin_hooks(found.plugins)

    assert hooks.config.is_empty()
    assert "its hooks were skipped" in hooks.problems[0]


def test_setting_sources_without_project_hide_the_projects_commands_agents_and_skills(tmp_path):
    project = tmp_path / "project"
    write(project / ".claude" / "commands" / "deploy.md", "Ship it\n")
    write(project / ".claude" / "agents" / "mine.md", "---\nname: mine\ndescription: d\n---\nHi\n")
    write(
        project / ".claude" / "skills" / "s" / "SKILL.md", "---\nname: s\ndescription: d\n---\nx\n"
    )
    user_only = Places.of(["user"])

    assert load_command_files(project).get("deploy") is not None
    assert load_command_files(project, places=user_only).get("deploy") is None
    assert load_agents(project).get("mine") is not None
    assert load_agents(project, user_only).get("mine") is None
    assert load_skills(project).get("s") is not None
    assert load_skills(project, user_only).get("s") is None
