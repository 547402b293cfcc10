"""Adding and removing MCP servers in the file each scope keeps them in.

  local    <project>/.agentcli/settings.local.json  `mcpServers` (yours, this project)
  project  <project>/.mcp.json                      `mcpServers` (shared, committed)
  user     $AGENTCLI_HOME/settings.json             `mcpServers` (yours, every project)

These files are written by people too, so a change goes through
config/json_store.py: every other key is kept, the write is atomic, and a
file that cannot be read as JSON (or whose `mcpServers` is not an object) is
refused with a message and left exactly as it was. The user file is private
(0600), like everything under AGENTCLI_HOME.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from agentcli.config.json_store import JsonStoreError, read_json_object, update_json_object
from agentcli.config.paths import agentcli_home
from agentcli.mcp.config.approval import project_servers_file
from agentcli.mcp.config.files import KEY

WritableScope = Literal["local", "project", "user"]
SCOPES: tuple[WritableScope, ...] = ("local", "project", "user")


class ScopeError(Exception):
    """Why a change to a scope's file was refused (nothing was written)."""


def scope_file(scope: WritableScope, project: Path) -> Path:
    if scope == "user":
        return agentcli_home() / "settings.json"
    if scope == "project":
        return project_servers_file(project)
    return project / ".agentcli" / "settings.local.json"


def add_server(project: Path, scope: WritableScope, name: str, entry: dict[str, Any]) -> Path:
    """Write `entry` as server `name` in the scope's file; returns the file. Raises
    ScopeError when the name is taken there or the file cannot be changed safely."""
    path = scope_file(scope, project)

    def add(data: dict[str, Any]) -> None:
        servers = _servers(data, path)
        if name in servers:
            raise ScopeError(
                f"an MCP server named {name!r} is already in the {scope} scope ({path}); "
                "remove it first"
            )
        servers[name] = entry

    _update(path, add, private=scope == "user")
    return path


def remove_server(project: Path, scope: WritableScope, name: str) -> Path:
    """Remove server `name` from the scope's file; returns the file. Raises ScopeError
    when it is not there or the file cannot be changed safely."""
    path = scope_file(scope, project)

    def remove(data: dict[str, Any]) -> None:
        servers = _servers(data, path)
        if name not in servers:
            raise ScopeError(f"no MCP server named {name!r} in the {scope} scope ({path})")
        del servers[name]

    _update(path, remove, private=scope == "user")
    return path


def scopes_holding(project: Path, name: str) -> list[WritableScope]:
    """The scopes whose file has an entry called `name` (valid or not); a file that
    cannot be read holds nothing here."""
    found = []
    for scope in SCOPES:
        try:
            servers = read_json_object(scope_file(scope, project)).get(KEY)
        except JsonStoreError:
            continue
        if isinstance(servers, dict) and name in servers:
            found.append(scope)
    return found


def _update(path: Path, change: Any, *, private: bool) -> None:
    try:
        update_json_object(path, change, private=private)
    except JsonStoreError as exc:
        raise ScopeError(f"{exc}; fix the file first (it was left as it is)") from exc
    except OSError as exc:
        raise ScopeError(f"{path}: cannot write: {exc.strerror or exc}") from exc


def _servers(data: dict[str, Any], path: Path) -> dict[str, Any]:
    servers = data.setdefault(KEY, {})
    if not isinstance(servers, dict):
        raise ScopeError(
            f"{path}: {KEY} is not an object of servers by name; fix the file first "
            "(it was left as it is)"
        )
    return servers
