"""Settings files: validated, layered, and traceable to where each value came from.

Layers, lowest to highest:
  user     $AGENTCLI_HOME/settings.json
  project  <project>/.agentcli/settings.json        (committed)
  local    <project>/.agentcli/settings.local.json  (personal, not committed)
  command line flags

Lists (permission rules, additional folders, hooks) add up across layers;
scalars (model, defaultMode, theme) and `env` keys are overridden by a higher
layer. A file that is not valid JSON, or has an unknown key or a wrong type,
is skipped with a problem naming the file, the key and what was expected, and
the other layers still load. Its `permissions.deny` list is kept when it is
itself valid: a typo elsewhere must not quietly lift a deny rule.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from agentcli.config.json_store import JsonStoreError, read_json_object
from agentcli.config.paths import agentcli_home
from agentcli.hooks.config import HooksConfig
from agentcli.permissions.rules import Rule, RuleSyntaxError

Mode = Literal["default", "acceptEdits", "plan", "bypassPermissions"]


def _check_rules(values: list[str]) -> list[str]:
    for value in values:
        Rule.parse(value)  # raises RuleSyntaxError (a ValueError) with the rule's text
    return values


class PermissionsSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    allow: list[str] = Field(default_factory=list)
    ask: list[str] = Field(default_factory=list)
    deny: list[str] = Field(default_factory=list)
    defaultMode: Mode | None = None
    additionalDirectories: list[str] = Field(default_factory=list)

    @field_validator("allow", "ask", "deny")
    @classmethod
    def _valid_rules(cls, values: list[str]) -> list[str]:
        return _check_rules(values)


class SettingsFile(BaseModel):
    """What one settings file may hold."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    schema_: str | None = Field(None, alias="$schema")
    model: str | None = None
    permissions: PermissionsSettings = Field(default_factory=PermissionsSettings)
    env: dict[str, str] = Field(default_factory=dict)
    hooks: HooksConfig = Field(default_factory=HooksConfig)
    theme: str | None = None


@dataclass
class Layer:
    name: str  # user | project | local | command line
    path: Path | None
    base: Path  # the folder relative rules and folders are taken from
    data: SettingsFile | None = None
    status: str = "not found"  # loaded | not found | skipped


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


@dataclass
class Settings:
    """The merged result, with the source of every value."""

    layers: list[Layer]
    problems: list[str]
    model: Sourced | None = None
    default_mode: Sourced | None = None
    theme: Sourced | None = None
    env: dict[str, Sourced] = field(default_factory=dict)
    allow: list[tuple[Rule, str]] = field(default_factory=list)
    ask: list[tuple[Rule, str]] = field(default_factory=list)
    deny: list[tuple[Rule, str]] = field(default_factory=list)
    additional_dirs: list[tuple[Path, str]] = field(default_factory=list)
    hooks: HooksConfig = field(default_factory=HooksConfig)
    hook_sources: list[tuple[str, str, str, str]] = field(default_factory=list)

    def rules(self, kind: str) -> list[Rule]:
        return [rule for rule, _ in getattr(self, kind)]

    def env_values(self) -> dict[str, str]:
        return {key: item.value for key, item in self.env.items()}


def settings_files(project: Path) -> list[tuple[str, Path, Path]]:
    """(layer name, file, base folder for relative paths), lowest first."""
    return [
        ("user", agentcli_home() / "settings.json", project),
        ("project", project / ".agentcli" / "settings.json", project),
        ("local", project / ".agentcli" / "settings.local.json", project),
    ]


def load_settings(project: Path, cli: CliSettings | None = None) -> Settings:
    """Read every layer, report the broken ones, and merge the rest."""
    project = project.resolve()
    problems: list[str] = []
    layers: list[Layer] = []
    salvaged: list[tuple[str, list[str], Path]] = []
    for name, path, base in settings_files(project):
        layer = Layer(name, path, base)
        layers.append(layer)
        data, problem, deny = _load_file(path)
        if problem:
            layer.status = "skipped"
            problems.append(problem)
            if deny:
                salvaged.append((name, deny, base))
        elif data is not None:
            layer.status, layer.data = "loaded", data
    settings = Settings(layers=layers, problems=problems)
    for layer in layers:
        if layer.data is not None:
            _merge(settings, layer.data, layer.name, layer.base)
    for name, deny, base in salvaged:
        settings.deny += [(Rule.parse(text, name, base), name) for text in deny]
    if cli is not None:
        _merge_cli(settings, cli, project, problems)
    return settings


def _load_file(path: Path) -> tuple[SettingsFile | None, str | None, list[str]]:
    try:
        raw = read_json_object(path)
    except JsonStoreError as exc:
        return None, f"{exc}; this settings file was skipped", []
    if not raw and not path.exists():
        return None, None, []
    try:
        return SettingsFile.model_validate(raw), None, []
    except ValidationError as exc:
        return None, format_settings_error(path, exc), _valid_deny(raw)


def _valid_deny(raw: dict[str, Any]) -> list[str]:
    permissions = raw.get("permissions")
    deny = permissions.get("deny") if isinstance(permissions, dict) else None
    if not isinstance(deny, list) or not all(isinstance(x, str) for x in deny):
        return []
    try:
        _check_rules(deny)
    except RuleSyntaxError:
        return []
    return deny


def format_settings_error(path: Path, exc: ValidationError) -> str:
    """One line per problem: the file, the key, what was expected."""
    lines = []
    for error in exc.errors(include_url=False):
        key = ".".join(str(p) for p in error["loc"]) or "(top level)"
        if error["type"] == "extra_forbidden":
            lines.append(f"unknown key {key!r}")
        else:
            message = error["msg"].removeprefix("Value error, ")
            lines.append(f"{key}: {message} (found {error.get('input')!r})")
    return f"{path}: " + "; ".join(lines) + "; this settings file was skipped"


def _merge(settings: Settings, data: SettingsFile, source: str, base: Path) -> None:
    if data.model is not None:
        settings.model = Sourced(data.model, source)
    if data.theme is not None:
        settings.theme = Sourced(data.theme, source)
    perms = data.permissions
    if perms.defaultMode is not None:
        settings.default_mode = Sourced(perms.defaultMode, source)
    for kind in ("allow", "ask", "deny"):
        getattr(settings, kind).extend(
            (Rule.parse(text, source, base), source) for text in getattr(perms, kind)
        )
    for folder in perms.additionalDirectories:
        path = Path(folder).expanduser()
        settings.additional_dirs.append(((base / path).resolve(), source))
    for key, value in data.env.items():
        settings.env[key] = Sourced(value, source)
    settings.hooks = settings.hooks.merged(data.hooks)
    for event, matchers in data.hooks.model_dump().items():
        for matcher in matchers:
            for hook in matcher["hooks"]:
                settings.hook_sources.append((event, matcher["matcher"], hook["command"], source))


def _merge_cli(settings: Settings, cli: CliSettings, cwd: Path, problems: list[str]) -> None:
    from agentcli.permissions.rules import parse_tool_list

    source = "command line"
    if cli.model:
        settings.model = Sourced(cli.model, source)
    if cli.permission_mode:
        settings.default_mode = Sourced(cli.permission_mode, source)
    for kind, values in (("allow", cli.allowed_tools), ("deny", cli.disallowed_tools)):
        try:
            rules = parse_tool_list(values, source, cwd)
        except RuleSyntaxError as exc:
            problems.append(f"command line: {exc}")
            continue
        getattr(settings, kind).extend((rule, source) for rule in rules)
    for folder in cli.add_dirs:
        settings.additional_dirs.append(((cwd / Path(folder).expanduser()).resolve(), source))
