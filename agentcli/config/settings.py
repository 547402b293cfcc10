"""Settings files: validated, layered, and traceable to where each value came from.

Layers, lowest to highest:
  user     $AGENTCLI_HOME/settings.json
  project  <project>/.agentcli/settings.json        (committed)
  local    <project>/.agentcli/settings.local.json  (personal, not committed)
  command line flags

Lists (permission rules, additional folders, hooks) add up across layers;
scalars (model, defaultMode, theme), `env` keys, `sandbox` keys and
`providers` entries are overridden by a higher layer (`--sandbox` sets `sandbox.enabled`). A file
that is not valid JSON, or has an unknown key or a wrong type, is skipped
with a problem naming the file, the key, its line and column, and what was
expected; the other layers still load. A broken file never loosens
protection: what protects in it (deny and ask rules, hooks, a stricter mode)
is kept when it is valid on its own (salvage.py), and when its deny or ask
rules cannot be read at all, `uncertain` says so and the session fails
closed (wiring/bootstrap.py `locked_reason`; config/notices.py words it).

The project's own files come with the folder, so in a folder the person has
not trusted (config/trust.py) only what protects in them applies, and what
they would enable is listed in `withheld` (config/untrusted.py). The user
file and the command line are the person's own and always apply. The servers
of the project's `.mcp.json` are MCP's configuration, not settings: the
session's loader (wiring/bootstrap.py `settings_for`) adds them to `withheld`
(mcp/config/withheld.py).
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from agentcli.config.hooks import HooksConfig
from agentcli.config.json_store import JsonStoreError, parse_json_object, read_json_text
from agentcli.config.paths import agentcli_home
from agentcli.config.rules import Rule, RuleSyntaxError
from agentcli.config.settings_schema import SettingsFile, describe_errors

if TYPE_CHECKING:  # loaded only for a file that fails to load, or a folder not trusted
    from agentcli.config.salvage import Salvage
    from agentcli.config.untrusted import Withheld


@dataclass
class Layer:
    name: str  # user | project | local | command line
    path: Path | None
    base: Path  # the folder relative rules and folders are taken from
    data: SettingsFile | None = None
    status: str = "not found"  # loaded | not found | skipped
    problem: str | None = None  # why it was skipped: key, line, column, what was expected
    uncertain: bool = False  # skipped, and its deny or ask rules could not be read
    in_project: bool = False  # comes with the project folder: applies fully only when trusted
    untrusted: bool = False  # in a folder not trusted: only what protects in it applies

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
    hooks: HooksConfig = field(default_factory=HooksConfig.none)
    hook_sources: list[tuple[str, str, str, str]] = field(default_factory=list)

    def rules(self, kind: str) -> list[Rule]:
        return [rule for rule, _ in getattr(self, kind)]

    def env_values(self) -> dict[str, str]:
        return {key: item.value for key, item in self.env.items()}


def settings_files(project: Path) -> list[tuple[str, Path, Path, bool]]:
    """(layer name, file, base folder for relative paths, comes with the project), lowest
    first. A file that comes with the project applies in full only in a trusted folder."""
    return [
        ("user", agentcli_home() / "settings.json", project, False),
        ("project", project / ".agentcli" / "settings.json", project, True),
        ("local", project / ".agentcli" / "settings.local.json", project, True),
    ]


def load_settings(
    project: Path,
    cli: CliSettings | None = None,
    *,
    trusted: bool = True,
    sources: Collection[str] | None = None,
    flag_file: Path | None = None,
) -> Settings:
    """Read every layer, report the broken ones, and merge the rest. `trusted`: whether
    the project folder is trusted (its own files apply in full; see config/trust.py).
    `sources`: only these of the user, project and local files (--setting-sources);
    `flag_file`: one more file above them (--settings)."""
    project = project.resolve()
    settings = Settings(layers=[], problems=[], trusted=trusted)
    files = [f for f in settings_files(project) if sources is None or f[0] in sources]
    if flag_file is not None:
        files.append(("--settings", flag_file, project, False))
    for name, path, base, in_project in files:
        layer = Layer(name, path, base, in_project=in_project)
        layer.untrusted = in_project and not trusted
        settings.layers.append(layer)
        kept = _read_layer(layer)
        if layer.problem is not None:
            _report_skipped(settings, layer, kept)
        if layer.untrusted:
            _merge_untrusted(settings, layer, kept)
        elif layer.data is not None:
            _merge(settings, layer.data, name, base)
        elif kept is not None:
            _merge_salvage(settings, kept, name, base)
    if cli is not None:
        _merge_cli(settings, cli, project)
    return settings


def _read_layer(layer: Layer) -> Salvage | None:
    """Fill in the layer's status, data and problem; what a skipped file still gives."""
    assert layer.path is not None
    try:
        text = read_json_text(layer.path)
        if text is None:
            return None
        raw = parse_json_object(text, layer.path)
    except JsonStoreError as exc:  # nothing in it can be trusted, its deny rules included
        layer.status, layer.problem, layer.uncertain = "skipped", exc.reason, True
        return None
    try:
        layer.data = SettingsFile.model_validate(raw)
    except ValidationError as exc:
        from agentcli.config.salvage import salvage

        kept = salvage(raw)
        layer.status, layer.problem = "skipped", describe_errors(exc, text)
        layer.uncertain = kept.rules_unknown
        return kept
    layer.status = "loaded"
    return None


def _report_skipped(settings: Settings, layer: Layer, kept: Salvage | None) -> None:
    skipped = "this settings file was skipped"
    parts = kept.kept() if kept is not None else []
    if parts:
        listed = ", ".join(parts[:-1]) + " and " + parts[-1] if len(parts) > 1 else parts[0]
        skipped += f", except its {listed}"
    settings.problems.append(f"{layer.path}: {layer.problem}; {skipped}")
    if layer.uncertain:
        settings.uncertain.append(f"the deny and ask rules in {layer.path} could not be read")


def _merge(settings: Settings, data: SettingsFile, source: str, base: Path) -> None:
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


def _merge_salvage(settings: Settings, kept: Salvage, source: str, base: Path) -> bool:
    """A skipped file's protective parts; its mode only when it asks for more care.
    Returns whether its mode applied."""
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


def _merge_untrusted(settings: Settings, layer: Layer, kept: Salvage | None) -> None:
    """A project file in a folder not trusted: what protects applies (never its hooks);
    what it would enable goes to `withheld`."""
    from agentcli.config.untrusted import protective_parts, withheld

    data = layer.data
    parts = protective_parts(data) if data is not None else kept
    mode_applied = False
    if parts is not None:
        without_hooks = replace(parts, hooks=None)
        mode_applied = _merge_salvage(settings, without_hooks, layer.name, layer.base)
    if data is not None and data.model is not None:
        settings.model = Sourced(data.model, layer.name)
    if data is not None and data.smallFastModel is not None:
        settings.small_fast_model = Sourced(data.smallFastModel, layer.name)
    if data is not None and data.theme is not None:
        settings.theme = Sourced(data.theme, layer.name)
    assert layer.path is not None
    settings.withheld += withheld(layer.name, layer.path, data, kept, mode_applied=mode_applied)


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
