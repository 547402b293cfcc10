"""A plugin's MCP servers: its `.mcp.json` (or the manifest's `mcpServers`).

Each server is named `plugin:<plugin>:<server>`, so its tools are
`mcp__plugin_<plugin>_<server>__<tool>`, as Claude Code names them. The
entries are read by MCP's own configuration (mcp/config/files.py, specs.py),
with `${CLAUDE_PLUGIN_ROOT}` standing for the plugin's folder beside the usual
`${VAR}` expansion (mcp/config/expand.py); a program it starts also gets that
folder in its environment as `CLAUDE_PLUGIN_ROOT`. A plugin's server is a program
somebody else wrote, so it waits for the person's yes exactly as a project's
`.mcp.json` server does (mcp/config/approval.py, remembered per project with
the entry's fingerprint; `enabledMcpjsonServers` names it by its full name).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentcli.mcp.config.approval import ProjectApprovals
from agentcli.mcp.config.expand import expand_spec
from agentcli.mcp.config.files import KEY, read_server_file, skipped_server
from agentcli.mcp.config.names import server_name_problem
from agentcli.mcp.config.servers import ConfiguredServer
from agentcli.plugins.manifest import Plugin

if TYPE_CHECKING:
    from agentcli.mcp.config.specs import ServerSpec

ROOT_NAME = "CLAUDE_PLUGIN_ROOT"


def server_name(plugin: str, server: str) -> str:
    return f"plugin:{plugin}:{server}"


def plugin_servers(
    plugins: tuple[Plugin, ...], project: Path
) -> tuple[list[ConfiguredServer], list[str]]:
    """Every plugin's servers (approved or waiting for a yes), and the problems found."""
    servers: list[ConfiguredServer] = []
    problems: list[str] = []
    approvals: ProjectApprovals | None = None
    for plugin in plugins:
        environ = {**os.environ, ROOT_NAME: str(plugin.root)}
        for source in plugin.mcp:
            specs, where = _specs(source, plugin, problems)
            for name, spec in specs.items():
                full = server_name(plugin.name, name)
                problem = server_name_problem(full)
                try:
                    if problem is not None:
                        raise ValueError(problem)
                    expanded = with_root_variable(expand_spec(spec, environ), plugin.root)
                except ValueError as exc:
                    problems.append(skipped_server(where, full, str(exc)))
                    continue
                approvals = approvals or ProjectApprovals.of(project)
                state = approvals.state(full, expanded)
                if state == "rejected":
                    continue
                servers.append(
                    ConfiguredServer(full, expanded, "plugin", where, state == "approved")
                )
    return servers, problems


def with_root_variable(spec: ServerSpec, root: Path) -> ServerSpec:
    """A program the plugin starts gets its folder as `CLAUDE_PLUGIN_ROOT`, as in Claude Code."""
    from agentcli.mcp.config.specs import StdioServer

    if not isinstance(spec, StdioServer) or ROOT_NAME in spec.env:
        return spec
    return spec.model_copy(update={"env": {**spec.env, ROOT_NAME: str(root)}})


def _specs(
    source: Path | dict[str, Any], plugin: Plugin, problems: list[str]
) -> tuple[dict[str, ServerSpec], str]:
    if isinstance(source, Path):
        found = read_server_file(source)
        problems.extend(found.problems)
        if found.found and not found.servers and not found.problems:
            return _inline(_flat(source), plugin, problems, str(source)), str(source)
        return found.servers, str(source)
    entries = source.get(KEY, source)
    return _inline(
        entries, plugin, problems, "plugin.json mcpServers"
    ), f"{plugin.root} (plugin.json)"


def _flat(path: Path) -> Any:
    """A `.mcp.json` written as servers by name, without the `mcpServers` key."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return {}


def _inline(entries: Any, plugin: Plugin, problems: list[str], where: str) -> dict[str, ServerSpec]:
    if not isinstance(entries, dict):
        problems.append(f"plugin {plugin.name}: {where} is not an object of servers; skipped")
        return {}
    from agentcli.mcp.config.specs import SpecError, parse_spec

    specs: dict[str, ServerSpec] = {}
    for name, entry in entries.items():
        try:
            specs[name] = parse_spec(entry)
        except SpecError as exc:
            problems.append(skipped_server(where, name, str(exc)))
    return specs
