"""The `mcpServers` of one file: `.mcp.json`, a settings file, or a `--mcp-config` file.

All of them hold `{"mcpServers": {name: entry}}`. Each entry stands on its
own: a broken one is left out with a one-line problem naming the file and the
server, and the others still load; so is one whose name tool names and rules
could not tell apart (mcp/config/names.py: `a__b`, `a_`, too long). A file that cannot be read as a JSON
object loses all its servers, with one problem naming the file. Entries come
back as written (variables not expanded): expanding is the loader's job, and
`agentcli mcp list` shows what the person wrote.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentcli.config.json_store import JsonStoreError, parse_json_object, read_json_text
from agentcli.config.key_positions import KeyPositions
from agentcli.mcp.config.names import server_name_problem

if TYPE_CHECKING:
    from agentcli.mcp.config.specs import ServerSpec

KEY = "mcpServers"
PROJECT_FILE = ".mcp.json"  # a project's shared servers, at its root


@dataclass(frozen=True)
class ServerFile:
    path: Path
    servers: dict[str, ServerSpec] = field(default_factory=dict)  # valid entries, in file order
    problems: list[str] = field(default_factory=list)
    found: bool = False  # the file exists


def read_server_file(path: Path, *, required: bool = False) -> ServerFile:
    """The servers in `path`; a missing file has none, and is a problem when `required`
    (a file named on the command line)."""
    try:
        text = read_json_text(path)
        raw = parse_json_object(text, path) if text is not None else None
    except JsonStoreError as exc:
        return ServerFile(path, problems=[_skipped_file(path, exc.reason)], found=True)
    if raw is None:
        problems = [_skipped_file(path, "file not found")] if required else []
        return ServerFile(path, problems=problems)
    assert text is not None
    return _servers(path, raw, KeyPositions(text))


def _servers(path: Path, raw: dict[str, Any], positions: KeyPositions) -> ServerFile:
    entries = raw.get(KEY)
    if entries is None:
        return ServerFile(path, found=True)
    if not isinstance(entries, dict):
        where = positions.of((KEY,))
        at = f" (line {where[0]}, column {where[1]})" if where else ""
        reason = f"{KEY}{at} must be an object of servers by name"
        return ServerFile(path, problems=[_skipped_file(path, reason)], found=True)
    from agentcli.mcp.config.specs import SpecError, parse_spec  # pydantic: servers to read

    servers: dict[str, ServerSpec] = {}
    problems: list[str] = []
    for name, entry in entries.items():
        try:
            if not name.strip():
                raise SpecError("a server needs a name")
            problem = server_name_problem(name)  # mcp/config/names.py
            if problem is not None:
                raise SpecError(problem)
            servers[name] = parse_spec(entry, (KEY, name), positions)
        except SpecError as exc:
            problems.append(skipped_server(path, name, str(exc)))
    return ServerFile(path, servers, problems, found=True)


def skipped_server(source: Path | str, name: str, reason: str) -> str:
    """The one-line problem for an entry that is left out."""
    return f"{source}: MCP server {name!r}: {reason}; this server was skipped"


def _skipped_file(path: Path, reason: str) -> str:
    return f"{path}: {reason}; its MCP servers were skipped"
