"""Which of a project's `.mcp.json` servers the person approved, and remembering it.

A project's `.mcp.json` comes with the folder, and each stdio entry is a
program agentcli would start, so even in a trusted folder each server waits
for the person's yes, asked once per project. The answers live in
`$AGENTCLI_HOME/mcp-project-servers.json` (private, 0600), keyed by the
project's real path, as folder trust does (config/trust.py). A yes is
remembered with a fingerprint of the entry as written, so if a later commit
changes what the server runs, the person is asked again; a no holds for the
name, whatever it later says.

Claude Code's settings keys work too: `disabledMcpjsonServers` (from any
settings file, Claude Code's `.claude/` ones included) says no; `enabledMcpjsonServers`
and `enableAllProjectMcpServers` say yes, but only from the person's own files
(user and local settings, agentcli's or Claude Code's): the project's committed settings come from the
same repository as `.mcp.json`, and a repository does not get to approve its
own servers. A no beats a yes wherever each comes from.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from agentcli.config.json_store import JsonStoreError, read_json_object, update_json_object
from agentcli.config.paths import agentcli_home
from agentcli.config.settings import settings_files
from agentcli.mcp.config.files import PROJECT_FILE, read_server_file

if TYPE_CHECKING:
    from agentcli.mcp.config.specs import ServerSpec

Approval = Literal["approved", "rejected", "pending"]
# Places whose settings may approve a project's servers: the person's own files.
_APPROVING_LAYERS = ("user", "local")


def approvals_file() -> Path:
    return agentcli_home() / "mcp-project-servers.json"


def project_servers_file(project: Path) -> Path:
    """The project's shared server list: `.mcp.json` at its root."""
    return project / PROJECT_FILE


def fingerprint(spec: ServerSpec) -> str:
    """A short digest of an entry as written (variables not expanded)."""
    written = json.dumps(spec.model_dump(), sort_keys=True)
    return hashlib.sha256(written.encode()).hexdigest()[:16]


@dataclass(frozen=True)
class ProjectApprovals:
    """Every answer that applies to one project's `.mcp.json` servers."""

    approved: dict[str, str]  # remembered yes: name -> fingerprint of the entry approved
    rejected: frozenset[str]  # remembered no
    enabled: frozenset[str]  # enabledMcpjsonServers (user, local settings)
    disabled: frozenset[str]  # disabledMcpjsonServers (any settings file)
    enable_all: bool  # enableAllProjectMcpServers (user, local settings; the higher wins)

    @classmethod
    def of(cls, project: Path) -> ProjectApprovals:
        entry = _remembered(project)
        approved = entry.get("approved")
        rejected = entry.get("rejected")
        enabled: set[str] = set()
        disabled: set[str] = set()
        enable_all = False
        for source in settings_files(project):  # Claude Code's files too, by their place
            raw = _settings(source.path)
            disabled |= _names(raw.get("disabledMcpjsonServers"))
            if source.place in _APPROVING_LAYERS:
                enabled |= _names(raw.get("enabledMcpjsonServers"))
                flag = raw.get("enableAllProjectMcpServers")
                enable_all = flag if isinstance(flag, bool) else enable_all
        return cls(
            approved={k: v for k, v in approved.items() if isinstance(v, str)}
            if isinstance(approved, dict)
            else {},
            rejected=frozenset(_names(rejected)),
            enabled=frozenset(enabled),
            disabled=frozenset(disabled),
            enable_all=enable_all,
        )

    def state(self, name: str, spec: ServerSpec) -> Approval:
        if name in self.disabled or name in self.rejected:
            return "rejected"
        if self.approved.get(name) == fingerprint(spec) or name in self.enabled or self.enable_all:
            return "approved"
        return "pending"


def approve_project_servers(
    project: Path, names: Iterable[str], others: Mapping[str, ServerSpec] | None = None
) -> None:
    """Remember a yes for these servers of the project's `.mcp.json` (or of `others`: the
    plugins' servers, plugins/servers.py), as they are now. Raises ValueError for a name
    neither holds (nothing is written then), OSError or JsonStoreError when the answers
    cannot be written."""
    servers = {**read_server_file(project_servers_file(project.resolve())).servers}
    servers |= others or {}
    names = list(names)
    unknown = [name for name in names if name not in servers]
    if unknown:
        raise ValueError(f"no such server in .mcp.json: {', '.join(unknown)}")

    def approve(entry: dict[str, Any]) -> None:
        approved = _dict(entry, "approved")
        for name in names:
            approved[name] = fingerprint(servers[name])
        entry["rejected"] = [n for n in _names_list(entry.get("rejected")) if n not in names]

    _update(project, approve)


def reject_project_servers(project: Path, names: Iterable[str]) -> None:
    """Remember a no for these servers of the project. Raises OSError or
    JsonStoreError when the answers cannot be written."""
    names = list(names)

    def reject(entry: dict[str, Any]) -> None:
        approved = _dict(entry, "approved")
        for name in names:
            approved.pop(name, None)
        rejected = _names_list(entry.get("rejected"))
        entry["rejected"] = rejected + [n for n in names if n not in rejected]

    _update(project, reject)


def reset_project_choices(project: Path) -> None:
    """Forget every answer about this project's servers: each is asked about again."""

    def forget(data: dict[str, Any]) -> None:
        projects = data.get("projects")
        if isinstance(projects, dict):
            projects.pop(str(project.resolve()), None)

    update_json_object(approvals_file(), forget, private=True)


def _update(project: Path, change: Any) -> None:
    key = str(project.resolve())

    def record(data: dict[str, Any]) -> None:
        change(_dict(_dict(data, "projects"), key))

    update_json_object(approvals_file(), record, private=True)


def _remembered(project: Path) -> dict[str, Any]:
    """This project's remembered answers; none when the file is missing or unreadable
    (then every server is asked about, which only asks more)."""
    try:
        projects = read_json_object(approvals_file()).get("projects")
    except JsonStoreError:
        return {}
    entry = projects.get(str(project.resolve())) if isinstance(projects, dict) else None
    return entry if isinstance(entry, dict) else {}


def _settings(path: Path) -> dict[str, Any]:
    """A settings file's object; {} when missing or broken (settings.py reports that)."""
    try:
        return read_json_object(path)
    except JsonStoreError:
        return {}


def _dict(data: dict[str, Any], key: str) -> dict[str, Any]:
    value = data.get(key)
    if not isinstance(value, dict):
        value = data[key] = {}
    return value


def _names_list(value: Any) -> list[str]:
    return [item for item in value if isinstance(item, str)] if isinstance(value, list) else []


def _names(value: Any) -> set[str]:
    return set(_names_list(value))
