"""Marketplaces: folders with `.claude-plugin/marketplace.json`, and the plugins they list.

A marketplace file has a `name`, an `owner` and `plugins`: entries with a
`name` and a `source`. A source that is a path (`"./plugins/formatter"`,
relative to the marketplace's root, the folder holding `.claude-plugin/`; a
bare name is taken under `metadata.pluginRoot`) is a folder on disk and loads;
it must stay inside the marketplace. Any other source (`github`, `url`, `npm`,
`git-subdir`) would be fetched over the network, which agentcli does not do:
such a plugin is named in a problem and not loaded.

Where a marketplace is, `extraKnownMarketplaces` says by its `source`:
`{"source": "directory", "path": ...}` (a folder, a git checkout included) or
`{"source": "file", "path": ".../marketplace.json"}`. A `github` or `git` source
loads only from a checkout already on disk: its `installLocation`, or Claude
Code's own clone (`~/.claude/plugins/marketplaces/<name>`); otherwise it is a
notice, never a fetch. A relative path is taken from the project folder.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

MARKETPLACE_FILE = Path(".claude-plugin") / "marketplace.json"
_REMOTE_KINDS = ("github", "git", "url", "npm", "hostPattern", "settings")


class MarketplaceError(ValueError):
    """The marketplace cannot be read or reached; the message says why."""


@dataclass(frozen=True)
class Entry:
    """One plugin a marketplace lists: its folder, or why it cannot load."""

    name: str
    folder: Path | None
    problem: str | None = None


@dataclass(frozen=True)
class Marketplace:
    name: str
    root: Path
    entries: dict[str, Entry]

    def entry(self, plugin: str) -> Entry | None:
        return self.entries.get(plugin)


def claude_code_clone(name: str) -> Path:
    """Where Claude Code keeps its clone of the marketplace `name`."""
    return Path.home() / ".claude" / "plugins" / "marketplaces" / name


def marketplace_root(name: str, config: Any, base: Path) -> Path:
    """The folder of the marketplace `name` as an `extraKnownMarketplaces` entry gives it.
    Raises MarketplaceError (a remote source not on disk, a malformed entry)."""
    source = config.get("source") if isinstance(config, dict) else None
    if not isinstance(source, dict) or not isinstance(source.get("source"), str):
        raise MarketplaceError('its entry needs a "source" object with a "source" kind')
    kind = source["source"]
    if kind in ("directory", "file"):
        path = source.get("path")
        if not isinstance(path, str) or not path:
            raise MarketplaceError(f'a "{kind}" source needs a "path"')
        found = (base / Path(path).expanduser()).resolve()
        if kind == "file":
            if found.name != "marketplace.json" or found.parent.name != ".claude-plugin":
                raise MarketplaceError(f"{found} is not a .claude-plugin/marketplace.json")
            found = found.parent.parent
        return found
    if kind in _REMOTE_KINDS:
        location = config.get("installLocation")
        for candidate in ([Path(location).expanduser()] if isinstance(location, str) else []) + [
            claude_code_clone(name)
        ]:
            if (candidate / MARKETPLACE_FILE).is_file():
                return candidate.resolve()
        raise MarketplaceError(
            f"its {kind} source is not on disk, and agentcli does not fetch marketplaces "
            "(clone it and name the folder with a directory source)"
        )
    raise MarketplaceError(f"unknown source kind {kind!r}")


def read_marketplace(root: Path) -> Marketplace:
    """The marketplace in `root`. Raises MarketplaceError."""
    path = root / MARKETPLACE_FILE
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise MarketplaceError(f"{path} not found") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise MarketplaceError(f"{path} cannot be read: {exc}") from None
    if not isinstance(data, dict) or not isinstance(data.get("name"), str):
        raise MarketplaceError(f"{path} has no name")
    plugins = data.get("plugins", [])
    if not isinstance(plugins, list):
        raise MarketplaceError(f"{path}: plugins must be a list")
    metadata = data.get("metadata")
    plugin_root = metadata.get("pluginRoot") if isinstance(metadata, dict) else None
    entries: dict[str, Entry] = {}
    for raw in plugins:
        if isinstance(raw, dict) and isinstance(raw.get("name"), str):
            entries.setdefault(raw["name"], _entry(root, raw, plugin_root))
    return Marketplace(data["name"], root, entries)


def _entry(root: Path, raw: dict[str, Any], plugin_root: Any) -> Entry:
    name, source = raw["name"], raw.get("source")
    if isinstance(source, dict):
        kind = source.get("source")
        return Entry(name, None, f"its {kind} source would be fetched; agentcli does not fetch")
    if not isinstance(source, str) or not source:
        return Entry(name, None, "it has no source")
    if not source.startswith(("./", "../")) and isinstance(plugin_root, str):
        source = f"{plugin_root.rstrip('/')}/{source}"
    folder = (root / source).resolve()
    if not folder.is_relative_to(root):
        return Entry(name, None, f"its source {source!r} leads out of the marketplace")
    return Entry(name, folder)
