"""`/plugin`: the session's plugins, and what each one brought.

For each plugin: its name, version and description, where it came from
(`--plugin-dir`, or `name@marketplace` and the settings layer that enabled it)
and its folder, then what it added under its namespace: commands
(`/plugin:command`), agents, skills, hooks (event and command) and MCP servers
(with their state: a plugin's server waits for a yes as a `.mcp.json` one
does). Then every plugin that could not load, and why. The text is a plain
function of the engine, so it is tested without the app.
"""

from __future__ import annotations

from typing import Any

from agentcli.agents.sub_engine import catalog_of
from agentcli.commands.command_files import load_command_files
from agentcli.commands.registry import NOT_READY, REGISTRY, CommandContext, command
from agentcli.plugins.manifest import Plugin
from agentcli.plugins.servers import server_name
from agentcli.skills.loader import load_skills

HOW = (
    "Load one with `--plugin-dir DIR`, or enable it in settings: "
    '`"enabledPlugins": {"name@marketplace": true}` with the marketplace in '
    "`extraKnownMarketplaces` (docs/plugins.md)."
)


def plugins_text(engine: Any) -> str:
    places = engine.places
    if not places.plugins and not places.plugin_problems:
        return f"No plugins in this session. {HOW}"
    lines = ["**Plugins**", ""]
    for plugin in places.plugins:
        lines += _plugin_lines(engine, plugin)
    if places.plugin_problems:
        lines += ["**Plugins that could not load**", ""]
        lines += [f"- {problem}" for problem in places.plugin_problems]
        lines.append("")
    lines.append(HOW)
    return "\n".join(lines)


def _plugin_lines(engine: Any, plugin: Plugin) -> list[str]:
    prefix = f"{plugin.name}:"
    version = f" {plugin.version}" if plugin.version else ""
    lines = [f"**{plugin.name}**{version} — {plugin.description or '(no description)'}"]
    lines.append(f"- from {plugin.source}: `{plugin.root}`")
    root = engine.workspace.root
    commands = load_command_files(root, lambda name: name in REGISTRY, engine.places).commands
    named = [f"/{c.name}" for c in commands if c.scope == f"plugin {plugin.name}"]
    catalog = catalog_of(engine)
    agents = [name for name in (catalog.names() if catalog else []) if name.startswith(prefix)]
    skills = [s.name for s in load_skills(root, engine.places).skills if s.name.startswith(prefix)]
    settings = engine.settings
    hooks = [
        f"{event}{f' [{matcher}]' if matcher else ''}: {cmd}"
        for event, matcher, cmd, source in (settings.hook_sources if settings else [])
        if source == f"plugin {plugin.name}"
    ]
    servers = _servers(engine, plugin)
    for label, items in (
        ("commands", named),
        ("agents", agents),
        ("skills", skills),
        ("hooks", hooks),
        ("MCP servers", servers),
    ):
        if items:
            lines.append(f"- {label}: " + ", ".join(f"`{item}`" for item in items))
    if not any((named, agents, skills, hooks, servers)):
        lines.append("- brought nothing agentcli loads")
    lines.append("")
    return lines


def _servers(engine: Any, plugin: Plugin) -> list[str]:
    mcp = engine.mcp
    if mcp is None:
        return []
    prefix = server_name(plugin.name, "")
    return [f"{s.name} ({s.state})" for s in mcp.status() if s.name.startswith(prefix)]


@command(
    "plugin",
    "List the session's plugins and what each one brought",
    aliases=("plugins",),
    frontends=("tui", "print"),
)
async def plugin_command(ctx: CommandContext) -> None:
    engine: Any = ctx.engine
    if engine is None:
        ctx.error(NOT_READY)
        return
    ctx.output(plugins_text(engine))
