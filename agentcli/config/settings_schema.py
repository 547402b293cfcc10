"""What a settings file may hold, and how its mistakes are described.

The models follow Claude Code's settings files, with one leniency: where a
list of rules or folders is expected, a single string is taken as a list of
one (`"deny": "Bash(rm:*)"` means `["Bash(rm:*)"]`), since refusing it would
throw away a deny rule whose meaning is plain. Errors name the key, its line
and column in the file, and what was expected.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    AliasChoices,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationError,
)

from agentcli.config.hooks import HooksConfig
from agentcli.config.key_positions import KeyPositions
from agentcli.config.provider_settings import ProvidersSettings
from agentcli.config.rules import Rule

Mode = Literal["default", "acceptEdits", "plan", "bypassPermissions"]
MODES: tuple[Mode, ...] = ("default", "acceptEdits", "plan", "bypassPermissions")


def one_as_list(value: Any) -> Any:
    """A lone string where a list is expected is a list of one."""
    return [value] if isinstance(value, str) else value


def _check_rules(values: list[str]) -> list[str]:
    for value in values:
        Rule.parse(value)  # raises RuleSyntaxError (a ValueError) with the rule's text
    return values


RuleList = Annotated[list[str], BeforeValidator(one_as_list), AfterValidator(_check_rules)]
FolderList = Annotated[list[str], BeforeValidator(one_as_list)]


class PermissionsSettings(BaseModel):
    model_config = ConfigDict(extra="forbid", defer_build=True)

    allow: RuleList = Field(default_factory=list)
    ask: RuleList = Field(default_factory=list)
    deny: RuleList = Field(default_factory=list)
    defaultMode: Mode | None = None
    additionalDirectories: FolderList = Field(default_factory=list)


class SandboxSettings(BaseModel):
    """Claude Code's names; `network` is a plain switch here (no domain list, no proxy)."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    enabled: bool | None = None
    autoAllowBashIfSandboxed: bool | None = None
    network: bool | None = None


class SettingsFile(BaseModel):
    """What one settings file may hold."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True, defer_build=True)

    schema_: str | None = Field(None, alias="$schema")
    model: str | None = None
    # The model of tools' side requests (WebFetch reading a long page).
    smallFastModel: str | None = None
    permissions: PermissionsSettings = Field(default_factory=PermissionsSettings)
    env: dict[str, str] = Field(default_factory=dict)
    hooks: HooksConfig = Field(default_factory=HooksConfig)
    theme: str | None = None
    sandbox: SandboxSettings = Field(default_factory=SandboxSettings)
    # MCP servers: each entry is checked on its own by mcp/config/files.py, so one
    # bad server never makes the rest of the settings file skipped.
    mcpServers: dict[str, Any] = Field(default_factory=dict)
    # Answers about a project's .mcp.json servers (mcp/config/approval.py).
    enabledMcpjsonServers: list[str] = Field(default_factory=list)
    disabledMcpjsonServers: list[str] = Field(default_factory=list)
    enableAllProjectMcpServers: bool | None = None
    # Days checkpoints (rewind) are kept; older ones are pruned at start-up.
    checkpointRetentionDays: int | None = Field(None, ge=1)
    # false: the context is compacted only by `/compact`, never by itself. Claude Code
    # names it `autoCompactEnabled` (its global config); either name is read.
    autoCompact: bool | None = Field(
        None, validation_alias=AliasChoices("autoCompact", "autoCompactEnabled")
    )
    # Model back ends besides Anthropic's (config/provider_settings.py).
    providers: ProvidersSettings = Field(default_factory=dict)
    # Plugins (agentcli/plugins/enabled.py): {"name@marketplace": true}, and where each
    # marketplace is ({"name": {"source": {"source": "directory", "path": ...}}}).
    enabledPlugins: dict[str, bool | list[str]] = Field(default_factory=dict)
    extraKnownMarketplaces: dict[str, Any] = Field(default_factory=dict)


def describe_errors(exc: ValidationError, text: str) -> str:
    """One clause per problem: the key, where it is in `text`, what was expected."""
    clauses, positions = [], KeyPositions(text)
    for error in exc.errors(include_url=False):
        loc = error["loc"]
        key = ".".join(str(part) for part in loc) or "(top level)"
        position = positions.of(loc)
        where = f" (line {position[0]}, column {position[1]})" if position else ""
        if error["type"] == "extra_forbidden":
            clauses.append(f"unknown key {key!r}{where}")
        else:
            message = error["msg"].removeprefix("Value error, ")
            clauses.append(f"{key}{where}: {message} (found {error.get('input')!r})")
    return "; ".join(clauses)
