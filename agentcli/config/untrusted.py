"""What a project settings file may do before its folder is trusted, and what it may not.

A project file (`.agentcli/settings.json`, `.agentcli/settings.local.json`, and
Claude Code's `.claude/settings.json` and `.claude/settings.local.json` alike)
comes with the folder: from a cloned repository, it is somebody else's. Until
the person trusts the folder (config/trust.py), only what protects applies:
its deny and ask rules, a `defaultMode` stricter than the one that applies
without it, turning the sandbox on (without auto-allowing Bash in it), and
the harmless `model`, `smallFastModel` and `theme`. Everything else is
withheld: hooks (commands agentcli would run), `env` (given to every command
and hook), `providers` (where prompts would be sent, with which key), a
looser `defaultMode`, allow rules, `additionalDirectories`, and
any other key, so a key added to the settings later is withheld until someone
decides it is safe. `withheld()` lists each of those, as the trust question
shows them. The project's `.mcp.json` comes with the folder too: each of its
servers is a program (or a remote endpoint) that trusting would let the person
approve; MCP's configuration lists them for the same question
(mcp/config/withheld.py), and the settings the session loads include them
(wiring/bootstrap.py `settings_for`, `project_withheld`).
"""

from __future__ import annotations

import json
import unicodedata
from dataclasses import dataclass
from pathlib import Path

from agentcli.config.hooks import HooksConfig
from agentcli.config.provider_settings import ProviderSettings
from agentcli.config.salvage import Salvage
from agentcli.config.settings_schema import SettingsFile

# The keys an untrusted project file may still set (besides permissions' deny and ask);
# `disabledMcpjsonServers` only ever turns a server off.
HARMLESS_KEYS = frozenset({"schema_", "model", "smallFastModel", "theme", "disabledMcpjsonServers"})
# Keys listed one item at a time below; any other key is listed whole.
_ITEMISED = frozenset({"permissions", "env", "hooks", "providers"})
# Modes that enable more than `default` does.
LOOSER_MODES = ("acceptEdits", "bypassPermissions")


@dataclass(frozen=True, slots=True)
class Withheld:
    """One thing a project file would enable if its folder were trusted."""

    key: str  # hooks | env | permissions.defaultMode | permissions.allow | ... | another key
    value: str  # the hook's event and command, NAME=value, the mode, the rule, the folder
    source: str  # the layer's name
    path: Path  # the file

    @property
    def dangerous(self) -> bool:
        """Shown in red: nothing would be asked any more."""
        return self.key == "permissions.defaultMode" and self.value == "bypassPermissions"


def protective_parts(data: SettingsFile) -> Salvage:
    """What applies from a valid project file in a folder not trusted."""
    permissions = data.permissions
    return Salvage(
        deny=permissions.deny,
        ask=permissions.ask,
        mode=permissions.defaultMode,
        sandbox=data.sandbox.enabled is True,
    )


def withheld(source: str, path: Path, data: SettingsFile, *, mode_applied: bool) -> list[Withheld]:
    """What the file (the part of it that could be read) would enable if trusted."""
    items: list[tuple[str, str]] = []
    items += _hooks(data.hooks)
    items += [("env", f"{key}={value}") for key, value in data.env.items()]
    items += [("providers", _provider(name, p)) for name, p in data.providers.items()]
    permissions = data.permissions
    mode = permissions.defaultMode
    if mode in LOOSER_MODES and not mode_applied:
        items.append(("permissions.defaultMode", mode))
    items += [("permissions.allow", rule) for rule in permissions.allow]
    items += [("permissions.additionalDirectories", d) for d in permissions.additionalDirectories]
    items += _other_keys(data)
    return [Withheld(key, shown_in_full(value), source, path) for key, value in items]


def _provider(name: str, provider: ProviderSettings) -> str:
    """Where a provider would send the person's prompts, and with which key."""
    shown = f"{name}: {provider.type} at {provider.baseUrl or 'its default address'}"
    return shown + (f", key from ${provider.apiKeyEnv}" if provider.apiKeyEnv else "")


def _hooks(hooks: HooksConfig) -> list[tuple[str, str]]:
    items = []
    for event, matchers in hooks.model_dump().items():
        for matcher in matchers:
            shown = f" [{matcher['matcher']}]" if matcher["matcher"] else ""
            items += [("hooks", f"{event}{shown}: {hook['command']}") for hook in matcher["hooks"]]
    return items


def _other_keys(data: SettingsFile) -> list[tuple[str, str]]:
    unset = HARMLESS_KEYS | _ITEMISED
    dumped = data.model_dump(exclude_defaults=True, by_alias=False)
    return [
        (key, json.dumps(value, default=str)) for key, value in dumped.items() if key not in unset
    ]


def shown_in_full(text: str) -> str:
    """`text` with control and format characters (a carriage return, an escape
    sequence, a right-to-left override) written as escapes, so what is shown
    is what would run, in full."""
    return "".join(
        ch if unicodedata.category(ch) not in ("Cc", "Cf") else ch.encode("unicode_escape").decode()
        for ch in text
    )
