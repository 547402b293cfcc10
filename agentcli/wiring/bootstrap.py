"""From command-line options and settings files to a ready QueryEngine, for every front end.

Both front ends build the engine the same way, so a flag means the same
thing in both: the options and the merged settings make the parts (the
workspace, the permission policy, the model, the system prompt, the tools,
the hooks), and `composition.assemble()` puts them together with the session.
The provider is built separately (`make_provider`) because a front end may
build it later than the engine (the TUI, after its first frame) and reports a
missing key in its own way; both then hand it over with `engine.connect()`.

Folder trust: `Options.trusted` says whether the project's own settings files
apply in full; None means "as remembered" (config/trust.py). `-p` passes True
(trust is implied, as in Claude Code); the TUI asks first when
`config.trust_question.trust_question()` lists something, then passes the
answer.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentcli.agents.definitions import AgentDefinition, load_agents
from agentcli.agents.sub_engine import catalog_of
from agentcli.config.credentials import keep_private
from agentcli.config.notices import Notice, startup_notices
from agentcli.config.paths import project_dir
from agentcli.config.settings import CliSettings, Settings, Sourced, load_settings
from agentcli.config.trust import is_trusted
from agentcli.core.messages import SystemBlock
from agentcli.engine.compaction import Compactor
from agentcli.engine.context import Environment, system_prompt
from agentcli.engine.memory import load_memory
from agentcli.engine.parts import DEFAULT_MODEL, EngineConfig
from agentcli.engine.query_engine import QueryEngine
from agentcli.hooks.callbacks import CallbackHook
from agentcli.mcp.config.servers import McpServers, load_mcp_servers
from agentcli.mcp.manager import McpManager
from agentcli.mcp.timeouts import McpTimeouts
from agentcli.permissions.policy import LOCKED, PermissionPolicy, only_reads
from agentcli.permissions.types import PermissionMode
from agentcli.plugins.enabled import PluginSet, load_plugins
from agentcli.plugins.hooks import plugin_hooks
from agentcli.plugins.places import Places
from agentcli.plugins.servers import plugin_servers
from agentcli.providers.base import Provider
from agentcli.providers.registry import api_key_variables, model_catalog, providers_of
from agentcli.providers.tuning import ApiTuning
from agentcli.session.checkpoint_prune import start_pruning
from agentcli.skills.loader import Skill, load_skills, read_rules
from agentcli.telemetry.runtime import observer_for
from agentcli.telemetry.runtime import problems as telemetry_problems
from agentcli.telemetry.switch import USER_LAYERS
from agentcli.tools.base import EditorFiles, Terminals, Tool, Workspace
from agentcli.tools.registry import (
    ASK_USER_QUESTION_TOOL,
    BASH_COMPANIONS,
    BUILTIN_TOOLS,
    EXIT_PLAN_MODE_TOOL,
    ToolRegistry,
    builtin_tool,
)
from agentcli.wiring.composition import assemble
from agentcli.wiring.reasoning_choice import reasoning_of

if TYPE_CHECKING:  # the sandbox's modules load only in a session that turns it on
    from agentcli.config.untrusted import Withheld  # and these in a folder not trusted
    from agentcli.engine.observer import EngineObserver
    from agentcli.mcp.sdk_transport import SdkMessages
    from agentcli.sandbox import Sandbox
    from agentcli.session.loader import LoadedSession


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
    # The Agent SDK's flags (agentcli/frontends/sdk/flags.py), open to -p too:
    system_prompt: str | None = None  # --system-prompt: instead of agentcli's own
    append_system_prompt: str | None = None  # --append-system-prompt: after it
    tools: list[str] | None = None  # --tools: the built-in tools offered ([]: none)
    session_id: str | None = None  # --session-id: a new session's id
    settings_file: str | None = None  # --settings: one more settings file, above the others
    setting_sources: list[str] | None = None  # --setting-sources: which of user/project/local
    json_schema: dict[str, Any] | None = None  # --json-schema: the StructuredOutput tool's
    effort: str | None = None  # --effort: above the effortLevel setting
    max_thinking_tokens: int | None = None  # --max-thinking-tokens: a thinking budget
    plugin_dirs: list[str] | None = None  # --plugin-dir DIR...: plugins for this session
    # Where the file tools and Bash do their I/O instead of here (an ACP client's).
    editor: EditorFiles | None = None
    terminals: Terminals | None = None
    # Someone answers AskUserQuestion: the app's person, an SDK program's can_use_tool,
    # an ACP editor. False in -p, which asks nobody: the tool is not offered there.
    person_answers: bool = False

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
            system_prompt=getattr(args, "system_prompt", None),
            append_system_prompt=getattr(args, "append_system_prompt", None),
            tools=getattr(args, "tools", None),
            session_id=getattr(args, "session_id", None),
            settings_file=getattr(args, "settings", None),
            setting_sources=getattr(args, "setting_sources", None),
            json_schema=getattr(args, "json_schema", None),
            effort=getattr(args, "effort", None),
            max_thinking_tokens=getattr(args, "max_thinking_tokens", None),
            plugin_dirs=getattr(args, "plugin_dirs", None),
        )


def make_provider(
    tuning: ApiTuning | None = None,
    settings: Settings | None = None,
    model: str = DEFAULT_MODEL,
) -> Provider:
    """The session's provider: Anthropic's API for plain model names, the settings'
    `providers` for `provider/model` names (providers/registry.py). The back end of
    `model` is built now: raises ModelError (with how to fix it) without its key or
    for a provider nobody configured.

    `tuning`: retries and timeouts, by default read from the environment; a front end
    reads it first (`ApiTuning.from_env()`) to show its `problems`.
    """
    from agentcli.providers.registry import ProviderRouter

    tuning = tuning or ApiTuning.from_env()
    env = settings.env_values() if settings is not None else {}
    router = ProviderRouter(providers_of(settings), tuning, env)
    router.connect(model)
    return router


def build_engine(
    options: Options,
    provider: Provider | None,
    resumed: LoadedSession | None = None,
    *,
    carry_totals: bool = False,
    mcp: McpManager | None = None,
    hook_callbacks: Sequence[CallbackHook] = (),
    sdk_messages: SdkMessages | None = None,
    agents: Sequence[AgentDefinition] = (),
) -> QueryEngine:
    """A session's engine from the command line and the settings files. Permission
    questions come on its event stream for the front end to answer. `resumed`: a session
    from `session.resume.resolve_resumed()` to continue; the engine starts with its last
    request's usage (the context size). `carry_totals`: start from the tokens and cost
    the session has used so far (the TUI shows the session's cost; headless reports
    each run's). `mcp`: the MCP servers of an engine this one replaces (a resumed
    session keeps the connections); by default the configured ones, not yet started.
    `hook_callbacks`: a front end's client's own hooks (the Agent SDK's), beside the
    settings' commands. `sdk_messages`: how the Agent SDK program's in-process MCP servers
    are reached (frontends/sdk/mcp_bridge.py). `agents`: a program's own subagents (the
    SDK's), above the agent files."""
    settings = settings_for(options)
    retention = settings.checkpoint_retention_days
    start_pruning(int(retention.value) if retention is not None else None)  # in the background
    # The providers' keys, like Anthropic's, are for agentcli only: no child inherits them.
    keep_private(api_key_variables(providers_of(settings)))
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
    connect_sandbox(policy)
    plugins = load_plugins(options.cwd, options.plugin_dirs or [], settings)
    places = Places.of(options.setting_sources, plugins.plugins, plugins.problems)
    skills = load_skills(workspace.root, places).skills
    for rule in read_rules(skills):
        policy.add_session_rule(rule)
    env = Environment.detect(workspace.root, git=True)
    sandbox_note = workspace.sandbox.model_note() if workspace.sandbox else None
    system = system_prompt(env, mode, load_memory(workspace.root), sandbox_note)
    with_plugin_hooks(settings, plugins)
    hooks = None if settings.hooks.is_empty() and not hook_callbacks else settings.hooks
    return assemble(
        provider=provider,
        tools=ToolRegistry(offered_tools(options, skill_tools(skills))),
        policy=policy,
        config=EngineConfig(
            model=model_of(settings),
            max_turns=options.max_turns,
            small_model=_value(settings.small_fast_model),
            models=model_catalog(providers_of(settings)),
            reasoning=reasoning_of(options.effort, options.max_thinking_tokens, settings),
        ),
        system=chosen_system(options, system),
        settings=settings,
        hooks=hooks,
        hook_callbacks=hook_callbacks,
        resumed=resumed,
        carry_totals=carry_totals,
        compactor=Compactor(auto=auto_compact(settings)),
        mcp=mcp or mcp_manager(options, settings, workspace, sdk_messages, plugins),
        session_id=options.session_id,
        agents=load_agents(options.cwd, places, agents) if offers(options, "Task") else None,
        # `--system-prompt` replaces agentcli's prompt, memory files and all.
        read_memory=partial(load_memory, workspace.root) if options.system_prompt is None else None,
        places=places,
        observer=telemetry_of(settings),
    )


def telemetry_of(settings: Settings) -> EngineObserver | None:
    """The process's telemetry recorder when telemetry is on (agentcli/telemetry/):
    switched on by the environment or a user-level settings file's `env`. What its
    configuration got wrong joins the settings' problems, which the person is shown."""
    user_env = {
        key: str(item.value) for key, item in settings.env.items() if item.source in USER_LAYERS
    }
    observer = observer_for(user_env)
    settings.problems += [f"telemetry: {problem}" for problem in telemetry_problems()]
    return observer


def auto_compact(settings: Settings) -> bool:
    """Whether the context is compacted by itself when it fills up (`autoCompact`)."""
    return settings.auto_compact is None or bool(settings.auto_compact.value)


def offers(options: Options, name: str) -> bool:
    """Whether `--tools` leaves the tool `name` in (no `--tools`, or "default": all; the
    background-task tools go with Bash)."""
    if options.tools is None or options.tools == ["default"] or name in options.tools:
        return True
    return name in BASH_COMPANIONS and "Bash" in options.tools


def offered_tools(options: Options, extra: Sequence[Tool] = ()) -> list[Tool]:
    """The built-in tools (ExitPlanMode always, so the tool list, a cached prefix, stays
    stable; AskUserQuestion where someone answers it) and `extra` ones (the Skill tool);
    `--tools`: only those named ("default": all); `--json-schema`: StructuredOutput."""
    asking = [builtin_tool(*ASK_USER_QUESTION_TOOL)] if options.person_answers else []
    tools: list[Tool] = [
        *session_builtin_tools(),
        builtin_tool(*EXIT_PLAN_MODE_TOOL),
        *asking,
        *extra,
    ]
    tools = [tool for tool in tools if offers(options, tool.name)]
    if options.json_schema is not None:
        from agentcli.tools.structured_output import StructuredOutputTool

        tools.append(StructuredOutputTool(options.json_schema))
    return tools


def skill_tools(skills: list[Skill]) -> list[Tool]:
    """The Skill tool when there are skills; its module (a pydantic input model) is
    imported only then."""
    if not skills:
        return []
    from agentcli.skills.tool import skill_tools as the_skill_tools

    return the_skill_tools(skills)


def session_builtin_tools() -> list[Tool]:
    """The built-in tools (each imported when first used), the Bash tool given the
    permission analysis' judgement of which command lines only read (tools/bash.py
    `read_only_lines`)."""
    return [
        builtin_tool(name, where, read_only_lines=only_reads)
        if name == "Bash"
        else builtin_tool(name, where)
        for name, where in BUILTIN_TOOLS
    ]


def chosen_system(options: Options, system: list[SystemBlock]) -> list[SystemBlock]:
    """`--system-prompt` replaces agentcli's prompt (empty: none at all);
    `--append-system-prompt` adds to whichever is in force; `--json-schema` asks for
    the StructuredOutput call."""
    if options.system_prompt is not None:
        system = [{"type": "text", "text": options.system_prompt}] if options.system_prompt else []
    appended = [options.append_system_prompt]
    if options.json_schema:
        from agentcli.tools.structured_output import INSTRUCTION

        appended.append(INSTRUCTION)
    added: list[SystemBlock] = [{"type": "text", "text": text} for text in appended if text]
    return [*system, *added]


def mcp_manager(
    options: Options,
    settings: Settings,
    workspace: Workspace,
    sdk_messages: SdkMessages | None = None,
    plugins: PluginSet | None = None,
) -> McpManager:
    """The session's MCP servers (mcp/config/servers.py), not yet started: a front end
    starts them once the SDK is imported (`McpManager.start()`)."""
    servers = load_mcp_servers(
        options.cwd,
        trusted=_trusted(options),
        extra_files=[Path(name) for name in options.mcp_config or []],
        strict=options.strict_mcp_config,
    )
    if plugins is not None and plugins.plugins and not options.strict_mcp_config:
        servers = with_plugin_servers(servers, plugins, options.cwd)
    timeouts = McpTimeouts.from_env()
    manager = McpManager(
        servers,
        startup_timeout_s=timeouts.startup_s,
        tool_timeout_s=timeouts.tool_s,
        cwd=workspace.root,
        env=settings.env_values(),
        connect_wait_s=timeouts.connect_wait_s,
        sdk_messages=sdk_messages,
    )
    manager.problems.extend(timeouts.problems)
    return manager


def with_plugin_hooks(settings: Settings, plugins: PluginSet) -> None:
    """The plugins' hooks join the settings' (plugins/hooks.py), listed with their plugin;
    what could not be read joins the settings' problems."""
    if not plugins.plugins:
        return
    found = plugin_hooks(plugins.plugins)
    settings.hooks = settings.hooks.merged(found.config)
    settings.hook_sources += found.sources
    settings.problems += found.problems


def with_plugin_servers(servers: McpServers, plugins: PluginSet, project: Path) -> McpServers:
    """The configured servers and the plugins' (plugins/servers.py); a configured server
    keeps its name."""
    found, problems = plugin_servers(plugins.plugins, project)
    added = {server.name: server for server in found if server.name not in servers.servers}
    return McpServers({**servers.servers, **added}, [*servers.problems, *problems])


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
    flag_file = Path(options.settings_file) if options.settings_file else None
    settings = load_settings(
        options.cwd,
        cli,
        trusted=_trusted(options),
        sources=options.setting_sources,
        flag_file=flag_file,
    )
    return with_project_servers(settings, options.cwd)


def project_withheld(project: Path) -> list[Withheld]:
    """What the project's own files (its settings files and `.mcp.json`) would enable if
    the folder were trusted: what `/trust` asks about."""
    return with_project_servers(load_settings(project, trusted=False), project).withheld


def with_project_servers(settings: Settings, project: Path) -> Settings:
    """In a folder not trusted, the servers of its `.mcp.json` are withheld too: they
    wait for trust, then for their own yes (mcp/config/approval.py)."""
    if not settings.trusted:  # loaded only here: a trusted folder never needs it
        from agentcli.mcp.config.withheld import project_servers_withheld

        settings.withheld += project_servers_withheld(project)
    return settings


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


def _value(item: Sourced | None) -> str | None:
    return str(item.value) if item is not None else None


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
    from agentcli.sandbox import Sandbox

    sandbox = Sandbox(
        network=values.get("network", False),
        auto_allow_bash=values.get("autoAllowBashIfSandboxed", True),
    )
    sandbox.check()
    return sandbox


def connect_sandbox(policy: PermissionPolicy) -> None:
    """Let the workspace's sandbox see the session's writable folders and its deny rules
    as they are when each command starts (`/add-dir`, a rule added later): it hides what a
    Read deny rule covers, and `.env*` files no Read allow rule names (sandbox/survey.py)."""
    workspace = policy.workspace
    if workspace.sandbox is not None:
        workspace.sandbox.follow(
            roots=lambda: [workspace.root, *workspace.extra_dirs],
            deny_rules=lambda: policy.deny,
            allow_rules=lambda: policy.allow,
        )


def engine_startup_notices(engine: QueryEngine) -> list[Notice]:
    """What a front end shows before the first prompt (skipped settings files, protection
    uncertain, project settings withheld, the bypass warning, a sandbox that cannot
    run), worded the same in every front end."""
    settings = engine.settings
    mode = engine.gate.policy.mode
    notices = startup_notices(settings, mode) if settings is not None else []
    mcp = engine.mcp
    mcp_problems = [Notice(problem, "warning") for problem in mcp.problems] if mcp else []
    skills = [Notice(p) for p in load_skills(engine.workspace.root, engine.places).problems]
    agents = catalog_of(engine)
    agent_problems = [Notice(problem, "warning") for problem in agents.problems] if agents else []
    plugins = [Notice(problem, "warning") for problem in engine.places.plugin_problems]
    return (
        notices
        + sandbox_notices(engine.workspace)
        + plugins
        + mcp_problems
        + skills
        + agent_problems
    )


def sandbox_notices(workspace: Workspace) -> list[Notice]:
    """The sandbox is on but cannot run commands: said at start, not at the first Bash call."""
    sandbox = workspace.sandbox
    problem = sandbox.problem([workspace.root, *workspace.extra_dirs]) if sandbox else None
    if not problem:
        return []
    from agentcli.sandbox import unavailable_message

    return [Notice(unavailable_message(problem), "error")]
