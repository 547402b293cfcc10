"""Every configured MCP server as written, and what a session would make of it.

`agentcli mcp list` and `get` show each entry of each scope, including the
ones a session would not start, with the reason: overridden by a higher
scope, waiting for the person's approval, rejected, or in a folder not
trusted (reading a project's files to show them starts nothing). Entries are
shown as written, variables not expanded, so a secret that comes from the
environment is not printed.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from agentcli.mcp.config.approval import ProjectApprovals
from agentcli.mcp.config.files import read_server_file
from agentcli.mcp.config.servers import McpServers, Scope, load_mcp_servers, server_files
from agentcli.mcp.config.specs import ServerSpec


@dataclass(frozen=True)
class ListedServer:
    name: str
    spec: ServerSpec  # as written
    scope: Scope
    source: Path
    status: str  # "in use", "overridden by local", "waiting for approval", ...


@dataclass(frozen=True)
class Listing:
    servers: list[ListedServer]  # lowest scope first, file order within one
    problems: list[str]
    trusted: bool  # whether the project's own files are used


def list_servers(project: Path, *, trusted: bool) -> Listing:
    project = project.resolve()
    effective = load_mcp_servers(project, trusted=trusted)
    approvals = ProjectApprovals.of(project)
    problems = list(effective.problems)
    listed: list[ListedServer] = []
    for scope, path in server_files(project, trusted=True):
        found = read_server_file(path)
        problems += [problem for problem in found.problems if problem not in problems]
        for name, spec in found.servers.items():
            status = _status(name, spec, scope, effective, approvals, trusted)
            listed.append(ListedServer(name, spec, scope, path, status))
    return Listing(listed, problems, trusted)


def _status(
    name: str,
    spec: ServerSpec,
    scope: Scope,
    effective: McpServers,
    approvals: ProjectApprovals,
    trusted: bool,
) -> str:
    if scope != "user" and not trusted:
        return "not used: this folder is not trusted"
    if scope == "project" and approvals.state(name, spec) == "rejected":
        return "rejected"
    used = effective.servers.get(name)
    if used is None:
        return "skipped (see problems)"
    if used.scope != scope:
        return f"overridden by {used.scope}"
    return "in use" if used.approved else "waiting for approval"
