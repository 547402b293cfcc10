"""Which plugins a session loads, and what could not be loaded.

In order, the first of a name wins: each `--plugin-dir DIR` (the SDK's
`plugins=[{"type": "local", "path": ...}]` passes the same flag), then the
settings' `enabledPlugins`: `{"name@marketplace": true}`, a higher layer's
value replacing a lower's (`false` turns off what a lower layer turned on),
each found in the marketplace of that name from `extraKnownMarketplaces`
(marketplaces.py).

Folder trust: a project's settings files come with the folder, so in a folder
not trusted their `enabledPlugins` and `extraKnownMarketplaces` are withheld,
as their other keys are (config/untrusted.py lists them for the trust
question); only the person's own settings, and the command line, load plugins
there. A plugin that cannot load (no such folder, a broken manifest, a
marketplace not on disk) is one problem, and the others still load.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentcli.plugins.manifest import Plugin, PluginError, read_plugin
from agentcli.plugins.marketplaces import (
    Marketplace,
    MarketplaceError,
    marketplace_root,
    read_marketplace,
)

if TYPE_CHECKING:
    from agentcli.config.settings import Settings

PLUGIN_DIR = "--plugin-dir"


@dataclass(frozen=True)
class PluginSet:
    plugins: tuple[Plugin, ...] = ()
    problems: tuple[str, ...] = field(default=())

    def get(self, name: str) -> Plugin | None:
        return next((plugin for plugin in self.plugins if plugin.name == name), None)


def load_plugins(cwd: Path, plugin_dirs: Sequence[str], settings: Settings | None) -> PluginSet:
    """The session's plugins: `plugin_dirs` (relative to `cwd`), then the enabled ones of
    `settings` (its trusted layers)."""
    plugins: dict[str, Plugin] = {}
    problems: list[str] = []

    def add(plugin: Plugin) -> None:
        if plugin.name in plugins:
            other = plugins[plugin.name]
            problems.append(
                f"plugin {plugin.name} ({plugin.root}): skipped, a plugin of that name "
                f"is already loaded from {other.root} ({other.source})"
            )
            return
        plugins[plugin.name] = plugin
        problems.extend(f"plugin {plugin.name}: {problem}" for problem in plugin.problems)

    for text in plugin_dirs:
        folder = (cwd / Path(text).expanduser()).resolve()
        try:
            add(read_plugin(folder, PLUGIN_DIR))
        except PluginError as exc:
            problems.append(f"{PLUGIN_DIR} {folder}: {exc}; not loaded")
    if settings is not None:
        for plugin in _enabled(settings, problems):
            add(plugin)
    return PluginSet(tuple(plugins.values()), tuple(problems))


def _enabled(settings: Settings, problems: list[str]) -> list[Plugin]:
    enabled: dict[str, tuple[bool, str]] = {}  # id -> (on, layer)
    known: dict[str, tuple[Any, Path]] = {}  # marketplace -> (its entry, base folder)
    for layer in settings.layers:
        data = layer.data
        if data is None or layer.untrusted:
            continue  # a project file in a folder not trusted: withheld (config/untrusted.py)
        for plugin_id, value in data.enabledPlugins.items():
            enabled[plugin_id] = (value is True or isinstance(value, list), layer.name)
        for name, entry in data.extraKnownMarketplaces.items():
            known[name] = (entry, layer.base)
    marketplaces: dict[str, Marketplace | str] = {}  # by name: read, or why not
    found: list[Plugin] = []
    for plugin_id, (on, layer_name) in enabled.items():
        if not on:
            continue
        name, _, market = plugin_id.partition("@")
        if not name or not market:
            problems.append(f"enabledPlugins: {plugin_id!r} is not name@marketplace; skipped")
            continue
        if market not in marketplaces:
            marketplaces[market] = _marketplace(market, known.get(market))
        marketplace = marketplaces[market]
        if isinstance(marketplace, str):
            problems.append(f"plugin {plugin_id}: not loaded: the marketplace {marketplace}")
            continue
        entry = marketplace.entry(name)
        if entry is None:
            problems.append(f"plugin {plugin_id}: not loaded: {market} lists no plugin {name}")
            continue
        if entry.folder is None:
            problems.append(f"plugin {plugin_id}: not loaded: {entry.problem}")
            continue
        try:
            found.append(read_plugin(entry.folder, f"{plugin_id} ({layer_name})", name=name))
        except PluginError as exc:
            problems.append(f"plugin {plugin_id} ({entry.folder}): {exc}; not loaded")
    return found


def _marketplace(name: str, known: tuple[Any, Path] | None) -> Marketplace | str:
    """The marketplace `name`, or the end of a sentence saying why it is not there."""
    if known is None:
        return f"{name} is not in extraKnownMarketplaces"
    entry, base = known
    try:
        return read_marketplace(marketplace_root(name, entry, base))
    except MarketplaceError as exc:
        return f"{name}: {exc}"
