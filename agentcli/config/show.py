"""`agentcli config` and `/config`: the merged settings, and where each value came from."""

from __future__ import annotations

import json

from agentcli.config.settings import Settings

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
        from agentcli.permissions.session_setup import withheld_notice

        lines += ["", withheld_notice(settings), TRUST_NOTE]
    if settings.problems:
        lines.append("")
        lines.append("Problems:")
        lines += [f"  ! {problem}" for problem in settings.problems]
    if settings.uncertain:
        from agentcli.permissions.session_setup import uncertain_notice

        lines += ["", uncertain_notice(settings)]
    lines.append("")
    lines.append("Effective settings:")
    for key, item in (
        ("model", settings.model),
        ("permissions.defaultMode", settings.default_mode),
        ("theme", settings.theme),
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
    if settings.hook_sources:
        lines.append("  hooks:")
        for event, matcher, command, source in settings.hook_sources:
            shown = f" [{matcher}]" if matcher else ""
            lines.append(f"    {event}{shown}: {command}  {origin(source)}")
    if len(lines) and lines[-1] == "Effective settings:":
        lines.append("  (all defaults)")
    return "\n".join(lines)


def config_command(argv: list[str]) -> int:
    """`agentcli config [--model M] [--permission-mode X] [--allowedTools ...] ...`.

    Accepts the session flags, so a person can see what a command line would
    add to their settings files.
    """
    from pathlib import Path

    from agentcli.cli import build_parser
    from agentcli.config.settings import CliSettings, load_settings
    from agentcli.config.trust import is_trusted

    args = build_parser().parse_args(argv)
    cli = CliSettings(
        model=args.model,
        permission_mode=args.permission_mode,
        allowed_tools=list(args.allowed_tools or []),
        disallowed_tools=list(args.disallowed_tools or []),
        add_dirs=list(args.add_dirs or []),
        sandbox=args.sandbox,
    )
    settings = load_settings(Path.cwd(), cli, trusted=is_trusted(Path.cwd()))
    print(render_settings(settings))
    return 1 if settings.problems else 0
