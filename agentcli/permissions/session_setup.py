"""From settings to a session's permissions and hooks: shared by the TUI and headless mode.

bootstrap.py calls `load_for_options()` first (to know the mode, rules,
folders and env), builds the engine, then `attach()` wires the hooks to the
engine (the tool runner fires the Notification hook when it asks). `startup_notices()` is what a
front end should show before the first prompt (skipped settings files,
protection uncertain, project settings withheld in a folder not trusted, the
bypass warning), worded the same in every front end.

Folder trust: `Options.trusted` says whether the project's own settings files
apply in full; None means "as remembered" (config/trust.py). `-p` passes True
(trust is implied, as in Claude Code); the TUI asks first when
`trust_question()` lists something, then passes the answer.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from agentcli.config.json_store import JsonStoreError
from agentcli.config.settings import CliSettings, Settings, load_settings
from agentcli.config.trust import declined, fingerprint, is_trusted, remember
from agentcli.config.untrusted import Withheld
from agentcli.hooks.events import Hooks
from agentcli.permissions.policy import LOCKED
from agentcli.permissions.types import PermissionMode
from agentcli.sandbox import Sandbox, unavailable_message

BYPASS_WARNING = (
    "every tool call runs without asking (deny rules still hold). "
    "Use it only in a sandbox you can throw away."
)


@dataclass(frozen=True, slots=True)
class Notice:
    """Something the person must know before the first prompt. `danger`: shown so it
    cannot be missed (bypassPermissions)."""

    text: str
    level: Literal["warning", "error", "danger"] = "warning"


def load_for_options(options: Any) -> Settings:
    """Merged settings for bootstrap's Options (cwd, model, mode, tool lists, --add-dir,
    whether the folder is trusted)."""
    cli = CliSettings(
        model=options.model,
        permission_mode=options.permission_mode,
        allowed_tools=list(options.allowed_tools or []),
        disallowed_tools=list(options.disallowed_tools or []),
        add_dirs=list(options.add_dirs or []),
        sandbox=bool(getattr(options, "sandbox", False)),
    )
    trusted = getattr(options, "trusted", None)
    if trusted is None:
        trusted = is_trusted(Path(options.cwd))
    return load_settings(Path(options.cwd), cli, trusted=trusted)


def trust_question(settings: Settings, project: Path) -> list[Withheld]:
    """What to ask the person to trust before the session starts; [] for no question:
    the folder is trusted, its files enable nothing more than untrusted ones do (asking
    then would only teach people to say yes), or they said no to exactly this before."""
    if settings.trusted or not settings.withheld:
        return []
    if declined(project) == _fingerprint(settings.withheld):
        return []
    return settings.withheld


def project_withheld(project: Path) -> list[Withheld]:
    """What the project's own settings files would enable if the folder were trusted."""
    return load_settings(project, trusted=False).withheld


def remember_trust(project: Path, trusted: bool, items: list[Withheld]) -> str | None:
    """Remember the answer to `trust_question()`; a message when it is not remembered
    (it holds for this session either way)."""
    try:
        remembered = remember(project, trusted, _fingerprint(items))
    except (OSError, JsonStoreError) as exc:
        return (
            f"Could not remember your answer about this folder ({exc}): it holds for this "
            "session, and agentcli will ask again next time."
        )
    if not remembered:
        return (
            "Trusting your home folder or the root holds for this session only: remembered, "
            "it would trust every project below it."
        )
    return None


def _fingerprint(items: list[Withheld]) -> str:
    return fingerprint([f"{item.path}\0{item.key}\0{item.value}" for item in items])


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
    if settings.withheld:
        notices.append(Notice(withheld_notice(settings)))
    if mode is PermissionMode.BYPASS:
        notices.append(
            Notice(f"bypassPermissions mode{_mode_origin(settings)}: {BYPASS_WARNING}", "danger")
        )
    return notices


def withheld_notice(settings: Settings) -> str:
    """The project's settings that do not apply because the folder is not trusted."""
    files = ", ".join(str(path) for path in dict.fromkeys(i.path for i in settings.withheld))
    shown = "; ".join(f"{item.key}: {item.value}" for item in settings.withheld)
    return (
        f"This folder is not trusted, so its settings ({files}) apply only in part: "
        f"ignored {shown}. Their deny and ask rules apply. /trust to decide again."
    )


def _mode_origin(settings: Settings) -> str:
    """` (from ...)`: where the mode was set."""
    source = settings.default_mode.source if settings.default_mode else None
    if source == "command line":
        return " (from --permission-mode)"
    layer = next((x for x in settings.layers if x.name == source), None)
    if layer is None:
        return ""
    whose = "the project's settings" if layer.in_project else "your settings"
    return f" (from {whose}, {layer.path})"


def uncertain_notice(settings: Settings) -> str:
    """The fail-closed state, and what ends it."""
    return (
        f"Protection uncertain: {'; '.join(settings.uncertain)}. Until that is fixed (then "
        "restart agentcli), every tool call asks first, whatever the mode or allow rules, and "
        "a run with -p refuses them; the deny rules that could be read still apply."
    )
