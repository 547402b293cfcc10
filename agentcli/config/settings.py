"""Settings files: validated, layered, and traceable to where each value came from.

Layers, lowest to highest; at each place Claude Code's file comes first, so agentcli's
own wins where both set the same key (the Claude Code layer's `shadowed` says which):
  claude user     $CLAUDE_CONFIG_DIR/settings.json (default ~/.claude/settings.json)
  user            $AGENTCLI_HOME/settings.json
  claude project  <project>/.claude/settings.json
  project         <project>/.agentcli/settings.json        (committed)
  claude local    <project>/.claude/settings.local.json
  local           <project>/.agentcli/settings.local.json  (personal, not committed)
  --settings      a file named on the command line
  command line flags

Lists (permission rules, additional folders, hooks) add up across layers;
scalars (model, defaultMode, theme), `env` keys, `sandbox` keys and
`providers` entries are overridden by a higher layer (`--sandbox` sets `sandbox.enabled`).
Claude Code's files are left out when AGENTCLI_IGNORE_CLAUDE_SETTINGS=1, or
`"claudeCodeSettings": false` in $AGENTCLI_HOME/settings.json (only there: a project's
file must not switch off the deny rules of the person's own ~/.claude/settings.json).

A file is read key by key (config/settings_reading.py): an unknown key, or a value of
the wrong type, is a problem naming the file, the key, its line and column, and that
key alone is ignored; a Claude Code key agentcli does not use is listed in `unsupported`.
A file that cannot be read at all (not JSON, not an object) is skipped. Protection is
never loosened by a mistake: when a file's deny or ask rules cannot be read, `uncertain`
says so and the session fails closed (wiring/bootstrap.py `locked_reason`;
config/notices.py words it), and that file's permissions give only what protects
(config/salvage.py).

The project's own files come with the folder, so in a folder the person has
not trusted (config/trust.py) only what protects in them applies, and what
they would enable is listed in `withheld` (config/untrusted.py); Claude Code's
project files exactly as agentcli's. The user files and the command line are the
person's own and always apply. The servers
of the project's `.mcp.json` are MCP's configuration, not settings: the
session's loader (wiring/bootstrap.py `settings_for`) adds them to `withheld`
(mcp/config/withheld.py).
"""

from __future__ import annotations

import os
from collections.abc import Collection
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentcli.config.hook_events import NO_HOOKS
from agentcli.config.json_store import (
    JsonStoreError,
    parse_json_object,
    read_json_object,
    read_json_text,
)
from agentcli.config.paths import agentcli_home, claude_config_dir
from agentcli.config.rules import Rule, RuleSyntaxError

# Loaded when needed: the models (pydantic) when there is a settings file to read,
# salvage and untrusted only for a file that fails to load, or a folder not trusted.
if TYPE_CHECKING:
    from agentcli.config.hooks import HooksConfig, HookTable
    from agentcli.config.salvage import Salvage
    from agentcli.config.settings_schema import SettingsFile
    from agentcli.config.untrusted import Withheld

# Set (to anything but 0, false or no): Claude Code's settings files are not read.
IGNORE_CLAUDE_ENV = "AGENTCLI_IGNORE_CLAUDE_SETTINGS"
# The one file whose `claudeCodeSettings` is honoured.
SWITCH_LAYER = "user"


@dataclass(frozen=True, slots=True)
class SettingsSource:
    """One settings file agentcli reads, and where it stands."""

    name: str  # claude user | user | claude project | project | claude local | local | --settings
    place: str  # user | project | local | --settings: what --setting-sources names
    path: Path
    base: Path  # the folder relative rules and folders are taken from
    in_project: bool  # comes with the project folder: applies fully only when trusted
    claude: bool = False  # Claude Code's file (agentcli's own at the same place wins)


@dataclass
class Layer:
    name: str  # a SettingsSource's name
    path: Path | None
    base: Path  # the folder relative rules and folders are taken from
    data: SettingsFile | None = None
    status: str = "not found"  # loaded | not found | skipped | same file as <layer>
    problem: str | None = None  # why it was skipped: unreadable, not JSON, not an object
    uncertain: bool = False  # its deny or ask rules could not (all) be read
    in_project: bool = False  # comes with the project folder: applies fully only when trusted
    untrusted: bool = False  # in a folder not trusted: only what protects in it applies
    place: str = ""  # user | project | local | --settings
    claude: bool = False  # Claude Code's file
    notices: list[str] = field(default_factory=list)  # keys ignored: key, line, column, why
    unsupported: list[str] = field(default_factory=list)  # Claude Code keys agentcli skips
    shadowed: list[str] = field(default_factory=list)  # keys agentcli's file here also sets
    winner: Path | None = None  # that file of agentcli's

    @property
    def partly_applied(self) -> bool:
        """A file that is there, in a folder not trusted."""
        return self.untrusted and self.status != "not found"


@dataclass
class Sourced:
    value: Any
    source: str  # the layer name


@dataclass
class CliSettings:
    """The command-line flags that take part in the merge."""

    model: str | None = None
    permission_mode: str | None = None
    allowed_tools: list[str] = field(default_factory=list)
    disallowed_tools: list[str] = field(default_factory=list)
    add_dirs: list[str] = field(default_factory=list)
    sandbox: bool = False


@dataclass
class Settings:
    """The merged result, with the source of every value."""

    layers: list[Layer]
    problems: list[str]
    trusted: bool = True  # the project's own files apply in full
    # Claude Code keys agentcli does not use, one line per file: ignored, no mistake.
    unsupported: list[str] = field(default_factory=list)
    # Why Claude Code's settings files are not read (the switch that says so), or None.
    claude_ignored: str | None = None
    # What the project's files would enable in a trusted folder (none when trusted).
    withheld: list[Withheld] = field(default_factory=list)
    # Why protection is uncertain: deny or ask rules that could not be read, one per source.
    uncertain: list[str] = field(default_factory=list)
    model: Sourced | None = None
    small_fast_model: Sourced | None = None
    default_mode: Sourced | None = None
    theme: Sourced | None = None
    checkpoint_retention_days: Sourced | None = None
    auto_compact: Sourced | None = None  # `autoCompact`: false turns auto-compaction off
    env: dict[str, Sourced] = field(default_factory=dict)
    sandbox: dict[str, Sourced] = field(default_factory=dict)  # enabled, network, ...
    # Model back ends by name (values: ProviderSettings); a higher layer's replaces a lower's.
    providers: dict[str, Sourced] = field(default_factory=dict)
    allow: list[tuple[Rule, str]] = field(default_factory=list)
    ask: list[tuple[Rule, str]] = field(default_factory=list)
    deny: list[tuple[Rule, str]] = field(default_factory=list)
    additional_dirs: list[tuple[Path, str]] = field(default_factory=list)
    hooks: HookTable = NO_HOOKS
    hook_sources: list[tuple[str, str, str, str]] = field(default_factory=list)

    def rules(self, kind: str) -> list[Rule]:
        return [rule for rule, _ in getattr(self, kind)]

    def env_values(self) -> dict[str, str]:
        return {key: item.value for key, item in self.env.items()}


def settings_files(project: Path, *, claude: bool | None = None) -> list[SettingsSource]:
    """The settings files of a session in `project`, lowest first. `claude`: whether
    Claude Code's are among them (default: unless switched off, `claude_settings_ignored`)."""
    if claude is None:
        claude = claude_settings_ignored() is None
    ours = agentcli_home()
    files = [
        SettingsSource("claude user", "user", claude_config_dir() / "settings.json", project, False, True),
        SettingsSource("user", "user", ours / "settings.json", project, False),
        SettingsSource("claude project", "project", project / ".claude" / "settings.json", project, True, True),
        SettingsSource("project", "project", project / ".agentcli" / "settings.json", project, True),
        SettingsSource("claude local", "local", project / ".claude" / "settings.local.json", project, True, True),
        SettingsSource("local", "local", project / ".agentcli" / "settings.local.json", project, True),
    ]  # fmt: skip
    return [source for source in files if claude or not source.claude]


def claude_settings_ignored() -> str | None:
    """What switches Claude Code's settings files off, in words, or None (they are read).
    A user file that cannot be read switches nothing off: reading more only protects more."""
    value = os.environ.get(IGNORE_CLAUDE_ENV, "").strip()
    if value.lower() not in ("", "0", "false", "no"):
        return f"{IGNORE_CLAUDE_ENV}={value}"
    user = agentcli_home() / "settings.json"
    try:
        switched_off = read_json_object(user).get("claudeCodeSettings") is False
    except JsonStoreError:
        return None
    return f'"claudeCodeSettings": false in {user}' if switched_off else None


def load_settings(
    project: Path,
    cli: CliSettings | None = None,
    *,
    trusted: bool = True,
    sources: Collection[str] | None = None,
    flag_file: Path | None = None,
) -> Settings:
    """Read every layer, report what cannot be used, and merge the rest. `trusted`:
    whether the project folder is trusted (its own files apply in full; see
    config/trust.py). `sources`: only the files of these places, user, project and local
    (--setting-sources); `flag_file`: one more file above them (--settings)."""
    project = project.resolve()
    settings = Settings(layers=[], problems=[], trusted=trusted)
    settings.claude_ignored = claude_settings_ignored()
    files = settings_files(project, claude=settings.claude_ignored is None)
    files = [f for f in files if sources is None or f.place in sources]
    if flag_file is not None:
        files.append(SettingsSource("--settings", "--settings", flag_file, project, False))
    read: dict[Path, str] = {}  # each file once: ~/.claude is also the home folder's .claude
    for source in files:
        layer = Layer(source.name, source.path, source.base, in_project=source.in_project)
        layer.place, layer.claude = source.place, source.claude
        layer.untrusted = source.in_project and not trusted
        settings.layers.append(layer)
        real = _real(source.path)
        if real in read:
            layer.status = f"same file as {read[real]}"
            continue
        read[real] = layer.name
        _read_layer(layer)
        _report(settings, layer)
        _apply(settings, layer)
    _note_shadowed(settings.layers)
    if cli is not None:
        _merge_cli(settings, cli, project)
    return settings


def _real(path: Path) -> Path:
    try:
        return path.resolve()
    except OSError:
        return path


def _read_layer(layer: Layer) -> None:
    """Fill in the layer's status, data, notices and uncertainty."""
    assert layer.path is not None
    try:
        text = read_json_text(layer.path)
        if text is None:
            return
        raw = parse_json_object(text, layer.path)
    except JsonStoreError as exc:  # nothing in it can be trusted, its deny rules included
        layer.status, layer.problem, layer.uncertain = "skipped", exc.reason, True
        return
    from pydantic import ValidationError

    from agentcli.config.settings_schema import SettingsFile

    try:
        layer.data = SettingsFile.model_validate(raw)
    except ValidationError:
        from agentcli.config.settings_reading import read_leniently

        reading = read_leniently(raw, text)
        layer.data, layer.uncertain = reading.data, reading.rules_unknown
        layer.notices, layer.unsupported = reading.notices, reading.unsupported
        if reading.data is None:
            why = "; ".join(reading.notices) or "it does not fit the settings' format"
            layer.status, layer.problem = "skipped", why
            layer.notices = []
            return
    layer.status = "loaded"
    _keys_out_of_place(layer, text)


def _keys_out_of_place(layer: Layer, text: str) -> None:
    """Keys that are valid, but not in this file: the switch for Claude Code's files is
    the person's own (their $AGENTCLI_HOME/settings.json), and MCP servers are not read
    from Claude Code's settings files (Claude Code keeps them in .mcp.json and ~/.claude.json)."""
    data = layer.data
    assert data is not None
    misplaced: dict[str, str] = {}
    if data.claudeCodeSettings is not None and layer.name != SWITCH_LAYER:
        misplaced["claudeCodeSettings"] = f"read only from {agentcli_home() / 'settings.json'}"
    if data.mcpServers and layer.claude:
        misplaced["mcpServers"] = (
            "MCP servers are read from .mcp.json and agentcli's own settings files, "
            "not from Claude Code's settings files"
        )
    if not misplaced:
        return
    from agentcli.config.key_positions import KeyPositions

    positions = KeyPositions(text)
    for key, why in misplaced.items():
        position = positions.of((key,))
        where = f" (line {position[0]}, column {position[1]})" if position else ""
        layer.notices.append(f"{key}{where}: {why}")
    layer.data = data.model_copy(update={"claudeCodeSettings": None, "mcpServers": {}})


def _report(settings: Settings, layer: Layer) -> None:
    if layer.problem is not None:
        settings.problems.append(f"{layer.path}: {layer.problem}; this settings file was skipped")
    settings.problems += [f"{layer.path}: {notice}; ignored" for notice in layer.notices]
    if layer.unsupported:
        listed = ", ".join(layer.unsupported)
        settings.unsupported.append(
            f"{layer.path}: Claude Code settings agentcli does not use, ignored: {listed}"
        )
    if layer.uncertain:
        settings.uncertain.append(f"the deny and ask rules in {layer.path} could not be read")


def _apply(settings: Settings, layer: Layer) -> None:
    """Merge what the layer gives: all of it, or in a folder not trusted what protects,
    and of a file whose deny or ask rules could not all be read, only the protective
    part of its permissions (the rest of it applies)."""
    data = layer.data
    if data is None:
        return
    if layer.untrusted:
        _merge_untrusted(settings, layer, data)
    elif layer.uncertain:
        from agentcli.config.salvage import Salvage
        from agentcli.config.settings_schema import PermissionsSettings

        perms = data.permissions
        _merge(settings, data.model_copy(update={"permissions": PermissionsSettings()}), layer)
        _merge_salvage(settings, Salvage(perms.deny, perms.ask, perms.defaultMode), layer)
    else:
        _merge(settings, data, layer)


def _note_shadowed(layers: list[Layer]) -> None:
    """On each Claude Code layer: the keys agentcli's file at the same place also sets,
    where agentcli's wins (lists are not among them: they add up)."""
    ours = {layer.place: layer for layer in layers if not layer.claude}
    for layer in layers:
        twin = ours.get(layer.place)
        if not layer.claude or twin is None or layer.untrusted:
            continue
        if layer.data is None or twin.data is None:
            continue
        both = _single_values(layer.data) & _single_values(twin.data)
        layer.shadowed, layer.winner = sorted(both), twin.path


def _single_values(data: SettingsFile) -> set[str]:
    """The keys a file sets that a higher file overrides (rather than adds to)."""
    from pydantic import BaseModel

    keys: set[str] = set()
    for name in data.model_fields_set - {"schema_", "hooks", "mcpServers"}:
        value = getattr(data, name)
        if value is None:  # a key dropped as out of place (`_keys_out_of_place`)
            continue
        if name == "permissions":
            keys |= {f"permissions.{k}" for k in value.model_fields_set if k == "defaultMode"}
        elif isinstance(value, BaseModel):
            keys |= {f"{name}.{k}" for k in value.model_fields_set}
        elif isinstance(value, dict):
            keys |= {f"{name}.{k}" for k in value}
        elif not isinstance(value, list):
            keys.add(name)
    return keys


def _merge(settings: Settings, data: SettingsFile, layer: Layer) -> None:
    source, base = layer.name, layer.base
    if data.model is not None:
        settings.model = Sourced(data.model, source)
    if data.smallFastModel is not None:
        settings.small_fast_model = Sourced(data.smallFastModel, source)
    if data.theme is not None:
        settings.theme = Sourced(data.theme, source)
    if data.checkpointRetentionDays is not None:
        settings.checkpoint_retention_days = Sourced(data.checkpointRetentionDays, source)
    if data.autoCompact is not None:
        settings.auto_compact = Sourced(data.autoCompact, source)
    perms = data.permissions
    if perms.defaultMode is not None:
        settings.default_mode = Sourced(perms.defaultMode, source)
    for kind in ("allow", "ask", "deny"):
        _add_rules(settings, kind, getattr(perms, kind), source, base)
    for folder in perms.additionalDirectories:
        path = Path(folder).expanduser()
        settings.additional_dirs.append(((base / path).resolve(), source))
    for key, value in data.env.items():
        settings.env[key] = Sourced(value, source)
    for key, value in data.sandbox.model_dump(exclude_none=True).items():
        settings.sandbox[key] = Sourced(value, source)
    for name, provider in data.providers.items():
        settings.providers[name] = Sourced(provider, source)
    _add_hooks(settings, data.hooks, source)


def _merge_salvage(settings: Settings, kept: Salvage, layer: Layer) -> bool:
    """What protects in a file that applies only in part; its mode only when it asks for
    more care. Returns whether its mode applied."""
    source, base = layer.name, layer.base
    _add_rules(settings, "deny", kept.deny, source, base)
    _add_rules(settings, "ask", kept.ask, source, base)
    current = settings.default_mode.value if settings.default_mode else "default"
    stricter = kept.mode is not None and _strictness(kept.mode) > _strictness(current)
    if stricter:
        settings.default_mode = Sourced(kept.mode, source)
    if kept.hooks is not None:
        _add_hooks(settings, kept.hooks, source)
    if kept.sandbox:  # turning the sandbox on only protects; auto-allow stays the person's
        settings.sandbox["enabled"] = Sourced(True, source)
        settings.sandbox.setdefault("autoAllowBashIfSandboxed", Sourced(False, source))
    return stricter


def _merge_untrusted(settings: Settings, layer: Layer, data: SettingsFile) -> None:
    """A project file in a folder not trusted: what protects applies (never its hooks);
    what it would enable goes to `withheld`."""
    from agentcli.config.untrusted import protective_parts, withheld

    parts = replace(protective_parts(data), hooks=None)
    mode_applied = _merge_salvage(settings, parts, layer)
    if data.model is not None:
        settings.model = Sourced(data.model, layer.name)
    if data.smallFastModel is not None:
        settings.small_fast_model = Sourced(data.smallFastModel, layer.name)
    if data.theme is not None:
        settings.theme = Sourced(data.theme, layer.name)
    assert layer.path is not None
    settings.withheld += withheld(layer.name, layer.path, data, mode_applied=mode_applied)


def _strictness(mode: str) -> int:
    """bypassPermissions < acceptEdits < default < plan."""
    return ("bypassPermissions", "acceptEdits", "default", "plan").index(mode)


def _add_rules(settings: Settings, kind: str, texts: list[str], source: str, base: Path) -> None:
    getattr(settings, kind).extend((Rule.parse(text, source, base), source) for text in texts)


def _add_hooks(settings: Settings, hooks: HooksConfig, source: str) -> None:
    settings.hooks = settings.hooks.merged(hooks)
    for event, matchers in hooks.model_dump().items():
        for matcher in matchers:
            for hook in matcher["hooks"]:
                settings.hook_sources.append((event, matcher["matcher"], hook["command"], source))


def _merge_cli(settings: Settings, cli: CliSettings, cwd: Path) -> None:
    from agentcli.config.rules import parse_tool_list

    source = "command line"
    if cli.model:
        settings.model = Sourced(cli.model, source)
    if cli.permission_mode:
        settings.default_mode = Sourced(cli.permission_mode, source)
    if cli.sandbox:
        settings.sandbox["enabled"] = Sourced(True, source)
    flags = (
        ("allow", "--allowedTools", cli.allowed_tools),
        ("deny", "--disallowedTools", cli.disallowed_tools),
    )
    for kind, flag, values in flags:
        try:
            rules = parse_tool_list(values, source, cwd)
        except RuleSyntaxError as exc:
            settings.problems.append(f"command line: {flag}: {exc}; these rules were skipped")
            if kind == "deny":
                settings.uncertain.append(f"the {flag} rules could not be read")
            continue
        getattr(settings, kind).extend((rule, source) for rule in rules)
    for folder in cli.add_dirs:
        settings.additional_dirs.append(((cwd / Path(folder).expanduser()).resolve(), source))
