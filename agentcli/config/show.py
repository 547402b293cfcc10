"""`agentcli config`: the merged settings, and where each value came from, as text.

The command line is cli/main.py's: it turns its flags into settings and asks this
module to show them.
"""

from __future__ import annotations

import json

from agentcli.config.notices import uncertain_notice, withheld_notice
from agentcli.config.settings import Settings


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
    skipped = {layer.name for layer in settings.layers if layer.status == "skipped"}

    def origin(source: str) -> str:  # a skipped file's deny/ask rules, hooks, mode still apply
        return f"({source}, kept from a skipped file)" if source in skipped else f"({source})"

    lines = ["Settings files (lowest to highest precedence):"]
    for layer in settings.layers:
        untrusted = ", folder not trusted" if layer.partly_applied else ""
        lines.append(f"  {layer.name:<8} {layer.path}  [{layer.status}{untrusted}]")
    lines.append("  command line flags")
    if settings.withheld:
        lines += ["", withheld_notice(settings), TRUST_NOTE]
    if settings.problems:
        lines.append("")
        lines.append("Problems:")
        lines += [f"  ! {problem}" for problem in settings.problems]
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
