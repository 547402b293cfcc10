"""A plugin's hooks: `hooks/hooks.json` (or the manifest's `hooks`), as settings' hooks.

The file is Claude Code's: `{"description": ..., "hooks": {event: [matchers]}}`,
the `hooks` object read by the settings' own model (config/hooks.py), so every
event and field the settings take is taken here too. `${CLAUDE_PLUGIN_ROOT}` in
a command is the plugin's folder, written in as Claude Code does; a folder
whose path a shell would read differently (a space, a quote, `$`...) is not
written into a command line: that plugin's hooks are left out, with a problem.
A file that cannot be read is a problem naming it; the plugin's other parts
still load.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentcli.config.hook_events import NO_HOOKS
from agentcli.plugins.manifest import Plugin

if TYPE_CHECKING:  # pydantic: loaded when a plugin has hooks
    from agentcli.config.hooks import HooksConfig, HookTable

ROOT_VARIABLE = "${CLAUDE_PLUGIN_ROOT}"
_SHELL_SAFE = re.compile(r"[A-Za-z0-9/._+,@%:=-]+")


@dataclass
class PluginHooks:
    config: HookTable = NO_HOOKS
    sources: list[tuple[str, str, str, str]] = field(default_factory=list)  # as Settings'
    problems: list[str] = field(default_factory=list)


def plugin_hooks(plugins: tuple[Plugin, ...]) -> PluginHooks:
    found = PluginHooks()
    for plugin in plugins:
        for source in plugin.hooks:
            raw, where = _raw(source, found.problems, plugin)
            if raw is None:
                continue
            from pydantic import ValidationError

            from agentcli.config.hooks import HooksConfig

            try:
                config = HooksConfig.model_validate(raw)
            except ValidationError as exc:
                first = exc.errors(include_url=False)[0]
                key = ".".join(str(part) for part in first["loc"])
                found.problems.append(
                    f"plugin {plugin.name}: {where}: {key}: {first['msg']}; its hooks were skipped"
                )
                continue
            uses_root = ROOT_VARIABLE in json.dumps(raw)
            if uses_root and not _SHELL_SAFE.fullmatch(str(plugin.root)):
                found.problems.append(
                    f"plugin {plugin.name}: its folder {plugin.root} holds characters a shell "
                    f"would read, so {ROOT_VARIABLE} is not written into its hook commands; "
                    "its hooks were skipped"
                )
                continue
            if uses_root:
                config = _with_root(config, plugin.root)
            found.config = found.config.merged(config)
            for event, matchers in config.model_dump().items():
                for matcher in matchers:
                    for hook in matcher["hooks"]:
                        found.sources.append(
                            (
                                event,
                                matcher["matcher"],
                                str(hook.get("command", "")),
                                f"plugin {plugin.name}",
                            )
                        )
    return found


def _raw(source: Path | dict[str, Any], problems: list[str], plugin: Plugin) -> tuple[Any, str]:
    """The `hooks` object of a hooks file (none when the file is not there), or inline."""
    if isinstance(source, dict):
        return source.get("hooks", source), "plugin.json hooks"
    if not source.is_file():
        return None, str(source)
    try:
        data = json.loads(source.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        problems.append(
            f"plugin {plugin.name}: {source} cannot be read: {exc}; its hooks were skipped"
        )
        return None, str(source)
    if not isinstance(data, dict) or not isinstance(data.get("hooks"), dict):
        problems.append(f'plugin {plugin.name}: {source} has no "hooks" object; skipped')
        return None, str(source)
    return data["hooks"], str(source)


def _with_root(config: HooksConfig, root: Path) -> HooksConfig:
    from agentcli.config.hooks import HooksConfig

    dumped = json.loads(
        json.dumps(config.model_dump(exclude_none=True)).replace(
            json.dumps(ROOT_VARIABLE)[1:-1], json.dumps(str(root))[1:-1]
        )
    )
    return HooksConfig.model_validate(dumped)
