"""What a settings file may hold, and how its mistakes are described.

The models follow Claude Code's settings files, with one leniency: where a
list of rules or folders is expected, a single string is taken as a list of
one (`"deny": "Bash(rm:*)"` means `["Bash(rm:*)"]`), since refusing it would
throw away a deny rule whose meaning is plain. A file that does not fit is
read key by key (config/settings_reading.py): what does not fit is named, with
its line and column, and the rest applies.
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
)

from agentcli.config.hooks import HooksConfig
from agentcli.config.provider_settings import ProvidersSettings
from agentcli.config.rules import Rule

Mode = Literal["default", "acceptEdits", "plan", "bypassPermissions"]
MODES: tuple[Mode, ...] = ("default", "acceptEdits", "plan", "bypassPermissions")


def one_as_list(value: Any) -> Any:
    """A lone string where a list is expected is a list of one."""
    return [value] if isinstance(value, str) else value


def _check_rule(value: str) -> str:
    Rule.parse(value)  # raises RuleSyntaxError (a ValueError) with the rule's text
    return value


# Each rule checked on its own, so a bad one is named by its place (`permissions.deny.1`).
RuleList = Annotated[
    list[Annotated[str, AfterValidator(_check_rule)]], BeforeValidator(one_as_list)
]
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


class StatusLineSettings(BaseModel):
    """Claude Code's `statusLine`: a command whose first line of output is shown in the
    app's status area (frontends/tui/status_command.py)."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    type: Literal["command"]
    command: str = Field(min_length=1)
    padding: int | None = Field(None, ge=0)
    # Seconds between runs while nothing changes (Claude Code's); None: on change only.
    refreshInterval: int | None = Field(None, ge=1)


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
    # false: Claude Code's settings files are not read (config/settings.py); honoured
    # only in $AGENTCLI_HOME/settings.json.
    claudeCodeSettings: bool | None = None
    # How hard the model thinks, as `--effort` (core/reasoning.py); `max` as well.
    effortLevel: Literal["low", "medium", "high", "xhigh", "max"] | None = None
    # "vim": the prompt starts with vim keys on (frontends/tui/vim_keys.py), as Claude Code.
    editorMode: Literal["normal", "vim"] | None = None
    # A command that draws a line of the status area (frontends/tui/status_command.py).
    statusLine: StatusLineSettings | None = None
    # Plugins (agentcli/plugins/enabled.py): {"name@marketplace": true}, and where each
    # marketplace is ({"name": {"source": {"source": "directory", "path": ...}}}).
    enabledPlugins: dict[str, bool | list[str]] = Field(default_factory=dict)
    extraKnownMarketplaces: dict[str, Any] = Field(default_factory=dict)
