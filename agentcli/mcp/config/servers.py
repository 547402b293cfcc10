"""Which MCP servers this session has, from every place they can be configured.

Sources, lowest to highest (a later one wins on the same name):
  user          $AGENTCLI_HOME/settings.json          `mcpServers`
  project       <project>/.mcp.json                   (shared, committed)
  local         <project>/.agentcli/settings.local.json  `mcpServers`
  command line  --mcp-config FILE...                  (only these with `strict`)

The project's files come with the folder, so in a folder the person has not
trusted (config/trust.py) neither `.mcp.json` nor the local file's servers
are read at all (the trust question lists the local file's `mcpServers` as
something trusting would enable). In a trusted folder each `.mcp.json`
server still waits for the person's yes (mcp/config/approval.py): until then
it is listed with `approved=False`, and the client must not start it; one
they said no to is left out. `${VAR}` and `${VAR:-default}` are expanded here
(mcp/config/expand.py). Every broken file or entry is a one-line problem
naming the file and the server, and everything else still loads. So are the
servers whose names read the same as another's in tool names and rules once
cleaned (`my.server` beside `my_server`: mcp/config/names.py), after the
layers have merged: the one named as it reads stays.

This is the contract with the MCP client (agentcli/mcp/): see
docs/mcp.md ("Configuration") for the file formats.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from agentcli.mcp.config.approval import ProjectApprovals
from agentcli.mcp.config.expand import expand_spec
from agentcli.mcp.config.files import ServerFile, read_server_file, skipped_server
from agentcli.mcp.config.names import clash_problem, clashes
from agentcli.mcp.config.scopes import scope_file

if TYPE_CHECKING:  # the entries' models (pydantic): loaded when there are entries
    from agentcli.mcp.config.specs import ServerSpec

__all__ = [
    "ConfiguredServer",
    "McpServers",
    "Scope",
    "load_mcp_servers",
    "pending_approval",
    "server_files",
]

# "plugin": a plugin's server (plugins/servers.py), approved as a project's are.
Scope = Literal["user", "project", "local", "command line", "plugin"]


@dataclass(frozen=True)
class ConfiguredServer:
    name: str
    spec: ServerSpec  # ${VAR} and ${VAR:-default} already expanded
    scope: Scope
    source: str  # the file it came from, for messages and `/mcp`
    approved: bool  # False: a project .mcp.json server not (yet) approved here;
    # the client must not start it


@dataclass(frozen=True)
class McpServers:
    servers: dict[str, ConfiguredServer]  # by name; later layers win on the same name
    problems: list[str]  # bad files/entries, each a clear one-line message


def server_files(project: Path, *, trusted: bool) -> list[tuple[Scope, Path]]:
    """The files that may configure servers for `project`, lowest first (the command
    line's aside). In a folder not trusted, the project's own files are not read."""
    files: list[tuple[Scope, Path]] = [("user", scope_file("user", project))]
    if trusted:
        files += [(scope, scope_file(scope, project)) for scope in ("project", "local")]
    return files


def load_mcp_servers(
    project: Path,
    *,
    trusted: bool,
    extra_files: Sequence[Path] = (),
    strict: bool = False,
) -> McpServers:
    """Every configured server, expanded, with the problems found on the way.
    `extra_files`: `--mcp-config`; `strict`: use only those."""
    project = project.resolve()
    read: list[tuple[Scope, ServerFile]] = []
    if not strict:
        read += [
            (scope, read_server_file(path))
            for scope, path in server_files(project, trusted=trusted)
        ]
    read += [("command line", read_server_file(path, required=True)) for path in extra_files]
    has_project = any(scope == "project" and found.servers for scope, found in read)
    approvals = ProjectApprovals.of(project) if has_project else None
    servers: dict[str, ConfiguredServer] = {}
    problems: list[str] = []
    for scope, found in read:
        problems += found.problems
        for name, spec in found.servers.items():
            approved = _approved(scope, name, spec, approvals)
            if approved is None:  # a project server the person said no to
                continue
            try:
                expanded = expand_spec(spec, os.environ)
            except ValueError as exc:
                problems.append(skipped_server(found.path, name, str(exc)))
                continue
            servers[name] = ConfiguredServer(name, expanded, scope, str(found.path), approved)
    clashing = clashes(servers)
    for name, other in clashing.items():
        reason = clash_problem(name, other, servers[other].source)
        problems.append(skipped_server(servers[name].source, name, reason))
    kept = {name: server for name, server in servers.items() if name not in clashing}
    return McpServers(kept, problems)


def _approved(
    scope: Scope, name: str, spec: ServerSpec, approvals: ProjectApprovals | None
) -> bool | None:
    """Whether the server may start; None when the person rejected it."""
    if scope != "project":
        return True
    assert approvals is not None
    state = approvals.state(name, spec)
    return None if state == "rejected" else state == "approved"


def pending_approval(servers: McpServers) -> list[ConfiguredServer]:
    """The project's servers waiting for the person's yes or no, in file order: what
    to ask about (mcp/config/approval.py remembers the answer)."""
    return [server for server in servers.servers.values() if not server.approved]
