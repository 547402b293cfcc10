"""From settings to a session's permissions and hooks: shared by the TUI and headless mode.

bootstrap.py calls `load_for_options()` first (to know the mode, rules,
folders and env), builds the engine, then `attach()` wires the Notification
hook to the gate, and the hooks to the engine. `startup_notices()` is what a
front end should show before the first prompt (skipped settings files,
protection uncertain, the bypass warning), worded the same in every front end.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from agentcli.config.settings import CliSettings, Settings, load_settings
from agentcli.hooks.events import Hooks
from agentcli.permissions.policy import LOCKED
from agentcli.permissions.types import PermissionMode
from agentcli.sandbox import Sandbox, unavailable_message

BYPASS_WARNING = (
    "bypassPermissions mode: every tool call runs without asking (deny rules still hold). "
    "Use it only in a sandbox you can throw away."
)


@dataclass(frozen=True, slots=True)
class Notice:
    """Something the person must know before the first prompt."""

    text: str
    level: Literal["warning", "error"] = "warning"


def load_for_options(options: Any) -> Settings:
    """Merged settings for bootstrap's Options (cwd, model, mode, tool lists, --add-dir)."""
    cli = CliSettings(
        model=options.model,
        permission_mode=options.permission_mode,
        allowed_tools=list(options.allowed_tools or []),
        disallowed_tools=list(options.disallowed_tools or []),
        add_dirs=list(options.add_dirs or []),
        sandbox=bool(getattr(options, "sandbox", False)),
    )
    return load_settings(Path(options.cwd), cli)


def locked_reason(settings: Settings) -> str | None:
    """Why nothing may run without asking (the policy's `locked_reason`), or None."""
    if not settings.uncertain:
        return None
    return f"{LOCKED}: {'; '.join(settings.uncertain)}, so every tool call asks until that is fixed"


def mode_of(settings: Settings) -> PermissionMode:
    return PermissionMode(settings.default_mode.value if settings.default_mode else "default")


def sandbox_of(settings: Settings) -> Sandbox | None:
    """The session's sandbox when `sandbox.enabled` (or --sandbox) turns it on.

    Checked here, where bootstrap runs (off the UI thread), so the start-up
    notice can say at once when it cannot run and no Bash call waits for the check.
    """
    values = {key: item.value for key, item in settings.sandbox.items()}
    if not values.get("enabled"):
        return None
    sandbox = Sandbox(
        network=values.get("network", False),
        auto_allow_bash=values.get("autoAllowBashIfSandboxed", True),
    )
    sandbox.check()
    return sandbox


def model_of(settings: Settings, default: str) -> str:
    """--model, then AGENTCLI_MODEL, then the settings files, then the default."""
    if settings.model is not None and settings.model.source == "command line":
        return settings.model.value
    env = os.environ.get("AGENTCLI_MODEL")
    if env:
        return env
    return settings.model.value if settings.model is not None else default


def attach(engine: Any, settings: Settings) -> None:
    """Wire settings-driven behaviour into a freshly built QueryEngine."""
    root = engine.workspace.root
    policy = engine.gate.policy
    engine.settings = settings
    if engine.tools.get("ExitPlanMode") is None:  # always offered: the tool list stays stable
        from agentcli.tools.exit_plan_mode import ExitPlanModeTool
        from agentcli.tools.registry import ToolRegistry

        engine.tools = ToolRegistry([*engine.tools, ExitPlanModeTool()])
    if settings.hooks.is_empty():
        engine.hooks = None
        return
    transcript = next((x.path for x in engine.listeners if hasattr(x, "path")), None)
    hooks = Hooks(
        settings.hooks,
        root,
        session_id=engine.session_id,
        transcript_path=str(transcript) if transcript else None,
        permission_mode=lambda: policy.mode.value,
        env=settings.env_values(),
    )
    engine.hooks = hooks
    engine.gate.on_wait = lambda request: hooks.notify(
        f"agentcli needs your permission to use {request.tool_name}"
    )


def engine_startup_notices(engine: Any) -> list[Notice]:
    """Startup notices for an engine built by bootstrap (empty if it has no settings)."""
    settings = getattr(engine, "settings", None)
    notices = startup_notices(settings, engine.gate.policy.mode) if settings is not None else []
    return notices + sandbox_notices(engine.workspace)


def sandbox_notices(workspace: Any) -> list[Notice]:
    """The sandbox is on but cannot run commands: said at start, not at the first Bash call."""
    sandbox = workspace.sandbox
    problem = sandbox.problem([workspace.root, *workspace.extra_dirs]) if sandbox else None
    return [Notice(unavailable_message(problem), "error")] if problem else []


def startup_notices(settings: Settings, mode: PermissionMode) -> list[Notice]:
    notices = [Notice(f"settings: {problem}") for problem in settings.problems]
    if settings.uncertain:
        notices.append(Notice(uncertain_notice(settings), "error"))
    if mode is PermissionMode.BYPASS:
        notices.append(Notice(BYPASS_WARNING))
    return notices


def uncertain_notice(settings: Settings) -> str:
    """The fail-closed state, and what ends it."""
    return (
        f"Protection uncertain: {'; '.join(settings.uncertain)}. Until that is fixed (then "
        "restart agentcli), every tool call asks first, whatever the mode or allow rules, and "
        "a run with -p refuses them; the deny rules that could be read still apply."
    )
