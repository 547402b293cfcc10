"""Claude Code's settings that agentcli does not (yet) use, by name.

A team's `.claude/settings.json` is written for Claude Code, so it holds keys agentcli
has no use for (`includeCoAuthoredBy`, `spinnerTipsEnabled`...). Such a key is not a
mistake: it is listed once per file as "Claude Code settings agentcli does not use"
(config/settings_reading.py), where a key nobody knows (`"modle"`) is a notice of its own.
Either way the key is ignored and the rest of the file applies.

A name here that the settings' schema (config/settings_schema.py, config/hooks.py)
accepts is simply used: the schema is asked first, so implementing a key needs no change
here. The names are those of Claude Code's settings reference (code.claude.com/docs,
"Settings" and "Hooks"), December 2026.
"""

from __future__ import annotations

TOP_LEVEL = frozenset(
    {
        "apiKeyHelper", "attribution", "alwaysThinkingEnabled", "autoCompactWindow",
        "autoUpdatesChannel", "awsAuthRefresh", "awsCredentialExport", "cleanupPeriodDays",
        "companyAnnouncements", "disableAllHooks", "allowManagedHooksOnly", "effortLevel",
        "enabledPlugins", "extraKnownMarketplaces", "fileSuggestion", "forceLoginMethod",
        "forceLoginOrgUUID", "includeCoAuthoredBy", "language", "otelHeadersHelper",
        "outputStyle", "respectGitignore", "showTurnDuration", "spinnerTipsEnabled",
        "spinnerVerbs", "statusLine", "terminalProgressBarEnabled", "allowedMcpServers",
        "deniedMcpServers", "strictKnownMarketplaces", "plansDirectory",
    }
)  # fmt: skip

HOOK_EVENTS = frozenset(
    {
        "PreToolUse", "PostToolUse", "PostToolUseFailure", "PermissionRequest",
        "UserPromptSubmit", "Notification", "Stop", "SubagentStart", "SubagentStop",
        "PreCompact", "SessionStart", "SessionEnd",
    }
)  # fmt: skip

PERMISSIONS = frozenset({"disableBypassPermissionsMode"})

SANDBOX = frozenset(
    {
        "excludedCommands", "allowUnsandboxedCommands", "enableWeakerNestedSandbox",
        "ignoreViolations",
    }
)  # fmt: skip


def is_claude_code_key(path: tuple[str | int, ...]) -> bool:
    """Whether the key at `path` ("statusLine"; "hooks", "PreCompact") is Claude Code's."""
    match path:
        case (str(key),):
            return key in TOP_LEVEL
        case ("hooks", str(event)):
            return event in HOOK_EVENTS
        case ("permissions", str(key)):
            return key in PERMISSIONS
        case ("sandbox", str(key)):
            return key in SANDBOX
    return False
