"""The composition root: the one place a QueryEngine is put together.

Every front end (the app, `-p`, and the SDK and ACP front ends to come) gets
its engine from here: through `bootstrap.build_engine()`, which turns
command-line options and settings files into the parts, or through
`assemble()` with the parts in hand (tests, benchmarks, a program embedding
agentcli). `assemble()` reads in the order the parts depend on each other:
where the conversation starts and under which session id, the transcript
named by that id, the hooks that name both, the gate, then the engine,
whole.

`assemble_subagent()` builds a subagent's engine (the Task tool) on its
parent's parts: the same provider, policy, workspace, hooks and MCP servers;
its own conversation, prompt, tools and transcript (saved beside the
parent's, under `<session>/subagents/`); the files it changes are recorded in
the parent's checkpoints, under the parent's current prompt.

`start_new_session()` is `/clear`: the same engine goes on in a new session on
the same parts. `finish_session()` closes the transcript at exit.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from agentcli.agents.definitions import AgentCatalog, AgentDefinition
from agentcli.agents.hooks import SubagentHooks
from agentcli.agents.launcher import SubagentLauncher
from agentcli.agents.sub_engine import (
    subagent_checkpoints,
    subagent_max_turns,
    subagent_system,
    subagent_tools,
)
from agentcli.agents.task_tool import TaskTool
from agentcli.config.hook_events import NO_HOOKS
from agentcli.config.paths import project_dir
from agentcli.config.settings import Settings
from agentcli.core.messages import SystemBlock
from agentcli.core.usage import SessionTotals
from agentcli.engine.budget import ToolResultBudget
from agentcli.engine.caching import request_shaper
from agentcli.engine.compaction import Compactor
from agentcli.engine.conversation import RequestShaper
from agentcli.engine.memory import Memory
from agentcli.engine.observer import EngineObserver
from agentcli.engine.parts import EngineConfig, EngineParts, SessionStart, new_session_id
from agentcli.engine.query_engine import QueryEngine
from agentcli.hooks.callbacks import CallbackHook
from agentcli.hooks.events import Hooks
from agentcli.mcp.manager import McpManager
from agentcli.permissions.gate import PermissionGate
from agentcli.permissions.policy import PermissionPolicy
from agentcli.plugins.places import EVERYWHERE, Places
from agentcli.providers.base import Provider
from agentcli.session.checkpoints import SessionCheckpoints
from agentcli.session.writer import TranscriptWriter, transcript_path
from agentcli.tools.base import Workspace
from agentcli.tools.registry import ToolRegistry

if TYPE_CHECKING:
    from agentcli.config.hooks import HookTable
    from agentcli.permissions.question_models import Asker
    from agentcli.session.loader import LoadedSession


def assemble(
    *,
    provider: Provider | None,
    tools: ToolRegistry,
    policy: PermissionPolicy,
    config: EngineConfig,
    system: Sequence[SystemBlock] = (),
    settings: Settings | None = None,
    hooks: HookTable | None = None,
    resumed: LoadedSession | None = None,
    carry_totals: bool = False,
    persist: bool = True,
    compactor: Compactor | None = None,
    shape_requests: bool = True,
    mcp: McpManager | None = None,
    hook_callbacks: Sequence[CallbackHook] = (),
    session_id: str | None = None,
    agents: AgentCatalog | None = None,
    read_memory: Callable[[], Memory] | None = None,
    places: Places = EVERYWHERE,
    observer: EngineObserver | None = None,
) -> QueryEngine:
    """A QueryEngine on these parts, with its session wired in.

    Permission questions travel on the engine's event stream for the front end to
    answer (permissions/question.py). `hooks`: the settings' hooks (None: no hooks run). `resumed`: a claimed
    session to go on with (session/resume.py); `carry_totals` starts from what it
    cost so far (the app shows the session's cost, headless each run's).
    `persist`: write a transcript. `compactor`: compacts when the context fills
    up (None: only `/compact`, with a one-off one). `shape_requests`: the
    tool-result budget and prompt-cache breakpoints on every request.
    `provider` may come later, through `engine.connect()`. `mcp`: the session's MCP
    servers (a front end starts them, and closes them at exit). `hook_callbacks`: the
    client's own hooks (the Agent SDK's), run beside `hooks`. `session_id`: a new
    session's id (the Agent SDK's --session-id); by default a fresh uuid.
    `agents`: the subagents the model may start with the Task tool (None: no Task tool).
    `read_memory`: reads the memory files `system` holds again, after a compaction.
    `places`: where command files, agent files and skills come from (plugins/places.py).
    `observer`: hears of the session's prompts, events and spending (telemetry).
    """
    workspace = policy.workspace
    start = _session_start(resumed, carry_totals)
    if resumed is None and session_id is not None:
        start = SessionStart(session_id=session_id)
    transcript = None
    checkpoints = None
    if persist:
        transcript = _transcript(workspace, start.session_id, config.model, policy)
        if resumed is not None:
            transcript.resume(resumed)  # its claim on the file, and its repairs
        forked_from = resumed.forked_from if resumed is not None else None
        checkpoints = SessionCheckpoints.for_session(
            workspace.root,
            start.session_id,
            forked_from=forked_from,
            extra_dirs=workspace.extra_dirs,
        )
    session_hooks = None
    if hooks is not None or hook_callbacks:
        path = str(transcript.path) if transcript is not None else None
        commands = hooks or NO_HOOKS
        session_hooks = _hooks(commands, workspace, start.session_id, path, policy, hook_callbacks)
    launcher = SubagentLauncher(agents, assemble_subagent) if agents is not None else None
    if launcher is not None:
        tools = ToolRegistry([*tools, TaskTool(launcher)])
    parts = EngineParts(
        provider=provider,
        tools=tools,
        gate=PermissionGate(policy),
        workspace=workspace,
        config=config,
        system=list(system),
        hooks=session_hooks,
        compactor=compactor,
        shape_request=_request_shaper(workspace) if shape_requests else None,
        settings=settings,
        transcript=transcript,
        mcp=mcp,
        checkpoints=checkpoints,
        read_memory=read_memory,
        places=places,
        observer=observer,
    )
    engine = QueryEngine(parts, start)
    if launcher is not None:
        launcher.attach(engine)
    return engine


def assemble_subagent(parent: QueryEngine, agent: AgentDefinition, asker: Asker) -> QueryEngine:
    """A subagent's engine on its parent's parts (agents/sub_engine.py says which
    tools it gets). Its permission questions name it (`asker`: its kind, its Task's
    description, its id); its transcript lies beside the parent's."""
    policy = parent.gate.policy
    tools, mcp = subagent_tools(agent, parent)
    transcript = None
    if parent.transcript is not None:
        path = subagent_transcript_path(parent.transcript.path, asker.agent_id)
        model = agent.model or parent.config.model
        transcript = TranscriptWriter(
            path,
            session_id=asker.agent_id,
            cwd=str(parent.workspace.root),
            model=model,
            permission_mode=lambda: policy.mode.value,
        )
    parts = EngineParts(
        provider=parent.provider,
        tools=tools,
        gate=PermissionGate(
            policy, remember=parent.gate.remember, asker=asker, ask_lock=parent.gate.ask_lock
        ),
        workspace=parent.workspace,
        config=EngineConfig(
            model=agent.model or parent.config.model,
            max_tokens=parent.config.max_tokens,
            reasoning=parent.config.reasoning,  # as Claude Code: the session's effort
            max_turns=subagent_max_turns(agent, parent.config.max_turns),
        ),
        system=subagent_system(agent, parent.workspace.root),
        hooks=_subagent_hooks(parent, asker, transcript),
        compactor=Compactor() if parent.compactor is not None else None,
        shape_request=parent.parts.shape_request,
        settings=parent.settings,
        transcript=transcript,
        mcp=mcp,
        checkpoints=subagent_checkpoints(parent),
        places=parent.places,
    )
    return QueryEngine(parts)


def _subagent_hooks(
    parent: QueryEngine, asker: Asker, transcript: TranscriptWriter | None
) -> SubagentHooks | None:
    if parent.hooks is None:
        return None
    path = str(transcript.path) if transcript is not None else None
    return SubagentHooks(parent.hooks, asker, path)


def subagent_transcript_path(parent: Path, agent_id: str) -> Path:
    """`<session>.jsonl` -> `<session>/subagents/<agent_id>.jsonl`."""
    return parent.with_suffix("") / "subagents" / f"{agent_id}.jsonl"


async def start_new_session(engine: QueryEngine, reason: str = "clear") -> list[str]:
    """`/clear`: end this session (SessionEnd hooks, its transcript synced and closed,
    untouched) and go on in a new one on the same engine parts (a new id, no messages,
    totals from zero, a new transcript written with its first message; SessionStart
    hooks). Returns what the hooks and the old transcript had to say."""
    notices = await engine.end_session(reason)
    problem = finish_session(engine)
    if problem:
        notices.append(problem)
    session_id = new_session_id()
    transcript = None
    checkpoints = None
    if engine.transcript is not None:
        policy = engine.gate.policy
        transcript = _transcript(engine.workspace, session_id, engine.config.model, policy)
        checkpoints = SessionCheckpoints.for_session(
            engine.workspace.root, session_id, extra_dirs=engine.workspace.extra_dirs
        )
    engine.start_over(session_id, transcript, checkpoints)
    return notices + await engine.start_session(reason)


def finish_session(engine: QueryEngine) -> str | None:
    """Sync and close the transcript (and the checkpoint log) at exit; the problem
    writing the transcript, if any."""
    if engine.checkpoints is not None:
        engine.checkpoints.close()
    transcript = engine.transcript
    if transcript is None:
        return None
    transcript.close()
    return transcript.problem


def _session_start(resumed: LoadedSession | None, carry_totals: bool) -> SessionStart:
    if resumed is None:
        return SessionStart()
    return SessionStart(
        session_id=resumed.session_id,
        messages=resumed.messages,
        totals=resumed.totals if carry_totals else SessionTotals(),
        last_request_usage=resumed.last_usage,
        prompts=resumed.prompts,
    )


def _transcript(
    workspace: Workspace, session_id: str, model: str, policy: PermissionPolicy
) -> TranscriptWriter:
    return TranscriptWriter(
        transcript_path(workspace.root, session_id),
        session_id=session_id,
        cwd=str(workspace.root),
        model=model,
        permission_mode=lambda: policy.mode.value,
    )


def _hooks(
    config: HookTable,
    workspace: Workspace,
    session_id: str,
    transcript_path: str | None,
    policy: PermissionPolicy,
    callbacks: Sequence[CallbackHook] = (),
) -> Hooks:
    return Hooks(
        config,
        workspace.root,
        session_id=session_id,
        transcript_path=transcript_path,
        permission_mode=lambda: policy.mode.value,
        env=workspace.env,
        callbacks=callbacks,
    )


def _request_shaper(workspace: Workspace) -> RequestShaper:
    """The tool-result budget (full outputs saved with the project's agentcli files),
    then the cache breakpoints."""
    folder = workspace.scratch_dir or project_dir(workspace.root) / "tool-output"
    return request_shaper(ToolResultBudget(folder))
