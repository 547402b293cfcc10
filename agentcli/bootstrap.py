"""From command-line options and settings files to a ready QueryEngine, for every front end.

Both front ends build the engine the same way, so a flag means the same
thing in both: the options and the merged settings make the parts (the
workspace, the permission policy, the model, the system prompt, the tools,
the hooks), and `composition.assemble()` puts them together with the session.
The provider is built separately (`make_provider`) because importing the SDK
is the slowest part of starting: headless overlaps it with the rest of the
set-up, the TUI does it after its first frame; both then hand it over with
`engine.connect()`.

Folder trust: `Options.trusted` says whether the project's own settings files
apply in full; None means "as remembered" (config/trust.py). `-p` passes True
(trust is implied, as in Claude Code); the TUI asks first when
`config.trust_question.trust_question()` lists something, then passes the
answer.
"""

from __future__ import annotations

import argparse
import os
from dataclasses import dataclass
from pathlib import Path

from agentcli.composition import assemble
from agentcli.config.mcp_servers import load_mcp_servers
from agentcli.config.notices import Notice, startup_notices
from agentcli.config.paths import project_dir
from agentcli.config.settings import CliSettings, Settings, load_settings
from agentcli.config.trust import is_trusted
from agentcli.engine.compaction import Compactor
from agentcli.engine.context import Environment, system_prompt
from agentcli.engine.memory import load_memory
from agentcli.engine.parts import DEFAULT_MODEL, EngineConfig
from agentcli.engine.query_engine import QueryEngine
from agentcli.mcp.manager import McpManager
from agentcli.mcp.timeouts import McpTimeouts
from agentcli.permissions.policy import LOCKED, PermissionPolicy
from agentcli.permissions.types import PermissionMode
from agentcli.providers.base import Provider
from agentcli.providers.tuning import ApiTuning
from agentcli.sandbox import Sandbox, unavailable_message
from agentcli.session.loader import LoadedSession
from agentcli.tools.base import EditorFiles, Terminals, Workspace
from agentcli.tools.exit_plan_mode import ExitPlanModeTool
from agentcli.tools.registry import ToolRegistry, builtin_tools


@dataclass
class Options:
    """What the person asked for, whichever front end they use."""

    cwd: Path
    model: str | None = None
    permission_mode: str | None = None
    allowed_tools: list[str] | None = None
    disallowed_tools: list[str] | None = None
    add_dirs: list[str] | None = None
    max_turns: int | None = None
    continue_session: bool = False  # --continue: the latest session of this folder
    resume: str | None = None  # --resume [ID]: "" means "let the person pick"
    sandbox: bool = False  # --sandbox: Bash commands run under bubblewrap
    # Whether the project's own settings files apply in full; None: as remembered
    # (config/trust.py). -p passes True: running it in a folder is trusting it.
    trusted: bool | None = None
    mcp_config: list[str] | None = None  # --mcp-config FILE...: more MCP servers
    strict_mcp_config: bool = False  # --strict-mcp-config: only those
    # Where the file tools and Bash do their I/O instead of here (an ACP client's).
    editor: EditorFiles | None = None
    terminals: Terminals | None = None

    @classmethod
    def from_args(cls, args: argparse.Namespace, cwd: Path | None = None) -> Options:
        return cls(
            cwd=(cwd or Path.cwd()).resolve(),
            model=args.model,
            permission_mode=args.permission_mode,
            allowed_tools=args.allowed_tools,
            disallowed_tools=args.disallowed_tools,
            add_dirs=args.add_dirs,
            max_turns=getattr(args, "max_turns", None),
            continue_session=bool(getattr(args, "continue_session", False)),
            resume=getattr(args, "resume", None),
            sandbox=bool(getattr(args, "sandbox", False)),
            mcp_config=getattr(args, "mcp_config", None),
            strict_mcp_config=bool(getattr(args, "strict_mcp_config", False)),
        )


def make_provider(tuning: ApiTuning | None = None) -> Provider:
    """The Anthropic provider. Raises ModelError (with how to fix it) without a key.

    `tuning`: retries and timeouts, by default read from the environment; a front end
    reads it first (`ApiTuning.from_env()`) to show its `problems`.
    """
    from agentcli.providers.anthropic import AnthropicProvider

    tuning = tuning or ApiTuning.from_env()
    return AnthropicProvider(retry=tuning.retry, timeouts=tuning.timeouts)


def build_engine(
    options: Options,
    provider: Provider | None,
    resumed: LoadedSession | None = None,
    *,
    carry_totals: bool = False,
    mcp: McpManager | None = None,
) -> QueryEngine:
    """A session's engine from the command line and the settings files. Permission
    questions come on its event stream for the front end to answer. `resumed`: a session
    from `session.resume.resolve_resumed()` to continue; the engine starts with its last
    request's usage (the context size). `carry_totals`: start from the tokens and cost
    the session has used so far (the TUI shows the session's cost; headless reports
    each run's). `mcp`: the MCP servers of an engine this one replaces (a resumed
    session keeps the connections); by default the configured ones, not yet started."""
    settings = settings_for(options)
    workspace = Workspace(
        root=options.cwd,
        extra_dirs=[path for path, _source in settings.additional_dirs],
        env=settings.env_values(),
        # Full outputs cut from tool results live with the project's other agentcli files.
        scratch_dir=project_dir(options.cwd) / "tool-output",
        sandbox=sandbox_of(settings),
        editor=options.editor,
        terminals=options.terminals,
    )
    mode = mode_of(settings)
    policy = PermissionPolicy(
        workspace=workspace,
        mode=mode,
        allow=settings.rules("allow"),
        ask=settings.rules("ask"),
        deny=settings.rules("deny"),
        locked_reason=locked_reason(settings),  # deny rules that could not be read
    )
    env = Environment.detect(workspace.root, git=True)
    sandbox_note = workspace.sandbox.model_note() if workspace.sandbox else None
    return assemble(
        provider=provider,
        # ExitPlanMode is always offered, so the tool list (a cached prefix) stays stable.
        tools=ToolRegistry([*builtin_tools(), ExitPlanModeTool()]),
        policy=policy,
        config=EngineConfig(model=model_of(settings), max_turns=options.max_turns),
        system=system_prompt(env, mode, load_memory(workspace.root), sandbox_note),
        settings=settings,
        hooks=None if settings.hooks.is_empty() else settings.hooks,
        resumed=resumed,
        carry_totals=carry_totals,
        compactor=Compactor(),
        mcp=mcp or mcp_manager(options, settings, workspace),
    )


def mcp_manager(options: Options, settings: Settings, workspace: Workspace) -> McpManager:
    """The session's MCP servers (config/mcp_servers.py), not yet started: a front end
    starts them once the SDK is imported (`McpManager.start()`)."""
    servers = load_mcp_servers(
        options.cwd,
        trusted=_trusted(options),
        extra_files=[Path(name) for name in options.mcp_config or []],
        strict=options.strict_mcp_config,
    )
    timeouts = McpTimeouts.from_env()
    manager = McpManager(
        servers,
        startup_timeout_s=timeouts.startup_s,
        tool_timeout_s=timeouts.tool_s,
        cwd=workspace.root,
        env=settings.env_values(),
    )
    manager.problems.extend(timeouts.problems)
    return manager


def settings_for(options: Options) -> Settings:
    """The settings files and the command line's flags, merged."""
    cli = CliSettings(
        model=options.model,
        permission_mode=options.permission_mode,
        allowed_tools=list(options.allowed_tools or []),
        disallowed_tools=list(options.disallowed_tools or []),
        add_dirs=list(options.add_dirs or []),
        sandbox=options.sandbox,
    )
    return load_settings(options.cwd, cli, trusted=_trusted(options))


def _trusted(options: Options) -> bool:
    return options.trusted if options.trusted is not None else is_trusted(options.cwd)


def mode_of(settings: Settings) -> PermissionMode:
    return PermissionMode(settings.default_mode.value if settings.default_mode else "default")


def model_of(settings: Settings) -> str:
    """--model, then AGENTCLI_MODEL, then the settings files, then the default."""
    if settings.model is not None and settings.model.source == "command line":
        return str(settings.model.value)
    env = os.environ.get("AGENTCLI_MODEL")
    if env:
        return env
    return str(settings.model.value) if settings.model is not None else DEFAULT_MODEL


def locked_reason(settings: Settings) -> str | None:
    """Why nothing may run without asking (the policy's `locked_reason`), or None."""
    if not settings.uncertain:
        return None
    return f"{LOCKED}: {'; '.join(settings.uncertain)}, so every tool call asks until that is fixed"


def sandbox_of(settings: Settings) -> Sandbox | None:
    """The session's sandbox when `sandbox.enabled` (or --sandbox) turns it on.

    Checked here, where the engine is built (off the UI thread), so the start-up
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


def engine_startup_notices(engine: QueryEngine) -> list[Notice]:
    """What a front end shows before the first prompt (skipped settings files, protection
    uncertain, project settings withheld, the bypass warning, a sandbox that cannot
    run), worded the same in every front end."""
    settings = engine.settings
    mode = engine.gate.policy.mode
    notices = startup_notices(settings, mode) if settings is not None else []
    mcp = engine.mcp
    mcp_problems = [Notice(problem, "warning") for problem in mcp.problems] if mcp else []
    return notices + sandbox_notices(engine.workspace) + mcp_problems


def sandbox_notices(workspace: Workspace) -> list[Notice]:
    """The sandbox is on but cannot run commands: said at start, not at the first Bash call."""
    sandbox = workspace.sandbox
    problem = sandbox.problem([workspace.root, *workspace.extra_dirs]) if sandbox else None
    return [Notice(unavailable_message(problem), "error")] if problem else []
