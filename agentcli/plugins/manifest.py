"""One plugin folder: its manifest, `.claude-plugin/plugin.json`, read.

Claude Code's format: `name` (the namespace of everything the plugin brings:
`/name:command`, the agent `name:agent`, `mcp__plugin_name_server__tool`),
`version`, `description`, and optional component paths that add to the default
folders (`commands`, `agents`, `skills`: a path or a list of paths; `hooks`,
`mcpServers`: a path or the object itself). Every path is relative to the
plugin's folder, starts with `./` and stays inside it; one that does not is a
problem and is left out. A folder without a manifest is a plugin named after
the folder (as Claude Code allows). Keys agentcli does not use (`author`,
`homepage`, `license`, `keywords`, ...) are read past.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

MANIFEST = Path(".claude-plugin") / "plugin.json"
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
_PATH_KEYS = ("commands", "agents", "skills")


class PluginError(ValueError):
    """The folder cannot be loaded as a plugin; the message says why (without the path)."""


@dataclass(frozen=True)
class Plugin:
    """A plugin as loaded: where it is, what it says about itself, and where its parts are."""

    name: str
    root: Path  # resolved
    source: str  # how it came: "--plugin-dir", "the SDK's plugins", "name@marketplace (user)"
    version: str = ""
    description: str = ""
    command_dirs: tuple[Path, ...] = ()
    agent_dirs: tuple[Path, ...] = ()
    skill_dirs: tuple[Path, ...] = ()
    hooks: tuple[Path | dict[str, Any], ...] = ()  # hooks.json files, or inline configs
    mcp: tuple[Path | dict[str, Any], ...] = ()  # .mcp.json files, or inline server maps
    problems: tuple[str, ...] = field(default=())


def read_plugin(folder: Path, source: str, *, name: str | None = None) -> Plugin:
    """The plugin in `folder`. `name`: the marketplace entry's, when it has no manifest.
    Raises PluginError."""
    if not folder.is_dir():
        raise PluginError("no such folder")
    root = folder.resolve()
    manifest = root / MANIFEST
    data: dict[str, Any] = {}
    if manifest.is_file():
        try:
            loaded = json.loads(manifest.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise PluginError(f"{MANIFEST} cannot be read: {exc}") from None
        if not isinstance(loaded, dict):
            raise PluginError(f"{MANIFEST} is not a JSON object")
        data = loaded
    plugin_name = data.get("name", name if name is not None else root.name)
    if not isinstance(plugin_name, str) or not _NAME.fullmatch(plugin_name):
        raise PluginError(
            f"the plugin name {plugin_name!r} should be letters, digits, '-', '_' or '.'"
        )
    problems: list[str] = []
    paths = {key: _paths(root, data.get(key), key, problems) for key in _PATH_KEYS}
    return Plugin(
        name=plugin_name,
        root=root,
        source=source,
        version=_text(data.get("version")),
        description=_text(data.get("description")),
        command_dirs=(root / "commands", *paths["commands"]),
        agent_dirs=(root / "agents", *paths["agents"]),
        skill_dirs=(root / "skills", *paths["skills"]),
        hooks=(root / "hooks" / "hooks.json", *_files_or_inline(root, data, "hooks", problems)),
        mcp=(root / ".mcp.json", *_files_or_inline(root, data, "mcpServers", problems)),
        problems=tuple(problems),
    )


def _text(value: Any) -> str:
    return " ".join(value.split()) if isinstance(value, str) else ""


def _paths(root: Path, value: Any, key: str, problems: list[str]) -> list[Path]:
    if value is None:
        return []
    values = [value] if isinstance(value, str) else value
    if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
        problems.append(f"{MANIFEST}: {key} must be a path or a list of paths; left out")
        return []
    return [path for v in values if (path := inside(root, v, key, problems)) is not None]


def _files_or_inline(
    root: Path, data: dict[str, Any], key: str, problems: list[str]
) -> list[Path | dict[str, Any]]:
    value = data.get(key)
    if value is None:
        return []
    if isinstance(value, dict):
        return [value]
    found: list[Path | dict[str, Any]] = []
    found += _paths(root, value, key, problems)
    return found


def inside(root: Path, text: str, key: str, problems: list[str]) -> Path | None:
    """`text` as a path in the plugin's folder, or None (and a problem) when it is not one."""
    if not text.startswith("./"):
        problems.append(f"{MANIFEST}: {key}: {text!r} must start with ./; left out")
        return None
    path = (root / text).resolve()
    if not path.is_relative_to(root):
        problems.append(f"{MANIFEST}: {key}: {text!r} leads out of the plugin's folder; left out")
        return None
    return path
