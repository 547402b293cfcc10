"""`agentcli config`: the merged settings, and where each value came from, as text.

The command line is cli/main.py's: it turns its flags into settings and asks this
module to show them.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import fields

from agentcli.config.notices import uncertain_notice, withheld_notice
from agentcli.config.settings import Layer, Settings, Sourced

# Settings' fields by the key a file writes them as (other fields: their own name).
_KEY_NAMES = {
    "small_fast_model": "smallFastModel",
    "default_mode": "permissions.defaultMode",
    "checkpoint_retention_days": "checkpointRetentionDays",
    "auto_compact": "autoCompact",
    "allow": "permissions.allow",
    "ask": "permissions.ask",
    "deny": "permissions.deny",
    "additional_dirs": "permissions.additionalDirectories",
    "hook_sources": "hooks",
}
# Not values a file gives (or given as hook_sources).
_NOT_GIVEN = frozenset({"layers", "problems", "unsupported", "claude_ignored", "trusted",
                        "withheld", "uncertain", "hooks"})  # fmt: skip


def contributions(settings: Settings, source: str) -> list[str]:
    """What applies from the layer `source`, in the end: `model`, `env (2)`,
    `permissions.deny (1)` (a value a higher file overrides is not among them)."""
    given = []
    for item in fields(settings):
        if item.name in _NOT_GIVEN:
            continue
        value, key = getattr(settings, item.name), _KEY_NAMES.get(item.name, item.name)
        if isinstance(value, Sourced):
            given += [key] if value.source == source else []
        elif isinstance(value, dict):
            count = sum(1 for v in value.values() if isinstance(v, Sourced) and v.source == source)
            given += [f"{key} ({count})"] if count else []
        elif isinstance(value, list):
            count = sum(1 for v in value if isinstance(v, tuple) and v[-1] == source)
            given += [f"{key} ({count})"] if count else []
    return given


def layer_summary(
    settings: Settings,
    layer: Layer,
    text: Callable[[str], str] = str,
    path: Callable[[str], str] = str,
) -> str:
    """`gives model, env (2)`, and who wins where agentcli's file at the same place sets
    the same key; empty when the file gives nothing. `text`, `path`: how words and the
    winning file's path are written (markdown escapes them differently)."""
    parts = []
    given = contributions(settings, layer.name)
    if given:
        parts.append(text("gives " + ", ".join(given)))
    if layer.shadowed:
        parts.append(f"{path(str(layer.winner))} {text('wins for: ' + ', '.join(layer.shadowed))}")
    return "; ".join(parts)


def claude_switch_line(settings: Settings) -> str | None:
    if settings.claude_ignored is None:
        return None
    return f"Claude Code's settings files are not read ({settings.claude_ignored})."


def provider_lines(settings: Settings) -> list[str]:
    """Each provider: its type, address, key variable and models, and where it came from."""
    lines = []
    for name, item in settings.providers.items():
        provider = item.value
        address = provider.baseUrl or "default address"
        key = f", key from ${provider.apiKeyEnv}" if provider.apiKeyEnv else ", no key"
        models = ", ".join(provider.models) or "no models configured"
        lines.append(f"{name}: {provider.type} at {address}{key}; {models}  ({item.source})")
    return lines


TRUST_NOTE = (
    "(That is the app's view until you trust the folder; agentcli -p trusts it, so there "
    "they apply.)"
)


def render_settings(settings: Settings) -> str:
    def origin(source: str) -> str:
        return f"({source})"

    lines = ["Settings files (lowest to highest precedence):"]
    width = max((len(layer.name) for layer in settings.layers), default=0)
    for layer in settings.layers:
        untrusted = ", folder not trusted" if layer.partly_applied else ""
        lines.append(f"  {layer.name:<{width}} {layer.path}  [{layer.status}{untrusted}]")
        summary = layer_summary(settings, layer)
        if summary:
            lines.append(f"  {'':<{width}}   {summary}")
    lines.append("  command line flags")
    switch = claude_switch_line(settings)
    if switch:
        lines.append(switch)
    if settings.withheld:
        lines += ["", withheld_notice(settings), TRUST_NOTE]
    if settings.problems:
        lines.append("")
        lines.append("Problems:")
        lines += [f"  ! {problem}" for problem in settings.problems]
    if settings.unsupported:
        lines += ["", "Not used:"]
        lines += [f"  - {line}" for line in settings.unsupported]
    if settings.uncertain:
        lines += ["", uncertain_notice(settings)]
    lines.append("")
    lines.append("Effective settings:")
    for key, item in (
        ("model", settings.model),
        ("smallFastModel", settings.small_fast_model),
        ("permissions.defaultMode", settings.default_mode),
        ("theme", settings.theme),
        ("checkpointRetentionDays", settings.checkpoint_retention_days),
        ("autoCompact", settings.auto_compact),
    ):
        if item is not None:
            lines.append(f"  {key} = {json.dumps(item.value)}  {origin(item.source)}")
    for kind in ("allow", "ask", "deny"):
        entries = getattr(settings, kind)
        if entries:
            lines.append(f"  permissions.{kind}:")
            lines += [f"    {rule}  {origin(source)}" for rule, source in entries]
    if settings.additional_dirs:
        lines.append("  permissions.additionalDirectories:")
        lines += [f"    {path}  ({source})" for path, source in settings.additional_dirs]
    for key, item in settings.sandbox.items():
        lines.append(f"  sandbox.{key} = {json.dumps(item.value)}  {origin(item.source)}")
    if settings.env:
        lines.append("  env:")
        lines += [
            f"    {key} = {json.dumps(item.value)}  ({item.source})"
            for key, item in settings.env.items()
        ]
    if settings.providers:
        lines.append("  providers:")
        lines += [f"    {line}" for line in provider_lines(settings)]
    if settings.hook_sources:
        lines.append("  hooks:")
        for event, matcher, command, source in settings.hook_sources:
            shown = f" [{matcher}]" if matcher else ""
            lines.append(f"    {event}{shown}: {command}  {origin(source)}")
    if len(lines) and lines[-1] == "Effective settings:":
        lines.append("  (all defaults)")
    return "\n".join(lines)
