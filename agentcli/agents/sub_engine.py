"""What a subagent's engine is made of beyond the parent's parts: its tools and its prompt.

The composition root (`composition.assemble_subagent`) builds the engine; the
choices specific to subagents live here. A subagent never gets Task (no
subagents of subagents), TodoWrite (the checklist is the main conversation's,
shown to the person), ExitPlanMode (leaving plan mode is the person's
call, and the mode is shared) or AskUserQuestion (as in Claude Code: a subagent
works on its own and reports back; the main conversation asks the person). An agent with a `tools` list gets only those
of the parent's tools, MCP servers' tools included when named; one without
gets them all, MCP servers' as they come and go.

A subagent's turns (model requests) are bounded, so one that loops cannot run
on and on: by its agent file's `maxTurns`, else DEFAULT_SUBAGENT_TURNS, and
never more than the run's own `--max-turns` (the same N, not what is left of
the parent's: each subagent is a conversation of its own, as the parent's
turns are counted in its own loop, and several subagents at once would
otherwise compete for one remainder).

A subagent's file changes are checkpointed in its parent's recorder, under the
person's prompt that the parent is answering (`UnderParentPrompt`): a rewind
to that prompt undoes all the turn did, its subagents' edits included. The
subagent's task is not a prompt of the person's, so it opens no checkpoint of
its own.
"""

from __future__ import annotations

import platform
from collections.abc import Sequence
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING

from agentcli.agents.definitions import AgentCatalog, AgentDefinition
from agentcli.core.messages import SystemBlock
from agentcli.engine.caching import mark_system
from agentcli.tools.registry import ToolRegistry

if TYPE_CHECKING:
    from agentcli.engine.parts import Checkpoints
    from agentcli.engine.query_engine import QueryEngine
    from agentcli.mcp.manager import McpManager

NOT_FOR_SUBAGENTS = frozenset({"Task", "TodoWrite", "ExitPlanMode", "AskUserQuestion"})
# Enough for a long search or a multi-step change (an Explore run takes a few dozen
# at most); a subagent that loops costs no more than this many requests.
DEFAULT_SUBAGENT_TURNS = 50


def subagent_tools(
    agent: AgentDefinition, parent: QueryEngine
) -> tuple[ToolRegistry, McpManager | None]:
    """The subagent's tools, and the MCP manager whose tools join them at each request
    (None when the agent names its tools)."""
    refused = NOT_FOR_SUBAGENTS | set(agent.disallowed_tools)
    own = [tool for tool in parent.tools if tool.name not in refused]
    servers = parent.mcp.tools() if parent.mcp is not None else []
    if agent.tools is None:
        if not agent.disallowed_tools:
            return ToolRegistry(own), parent.mcp
        return ToolRegistry([*own, *(t for t in servers if t.name not in refused)]), None
    wanted = set(agent.tools) - refused
    return ToolRegistry(t for t in [*own, *servers] if t.name in wanted), None


def subagent_max_turns(agent: AgentDefinition, run_limit: int | None) -> int:
    """The most turns the subagent may take: its own bound, within the run's."""
    own = agent.max_turns or DEFAULT_SUBAGENT_TURNS
    return own if run_limit is None else min(own, run_limit)


def subagent_system(agent: AgentDefinition, root: Path) -> list[SystemBlock]:
    """The agent's own prompt, then where it works (byte-stable for the run)."""
    where = (
        "Environment:\n"
        f"- Working directory (the project folder): {root}\n"
        f"- Platform: {platform.system()} {platform.release()}\n"
        f"- Today's date: {date.today().isoformat()}"
    )
    return mark_system([{"type": "text", "text": f"{agent.system_prompt}\n\n{where}"}])


class UnderParentPrompt:
    """The parent's checkpoints as its subagent's engine records into them: each file
    the subagent writes is recorded before and after, under the parent's current
    prompt (once per file per prompt, whoever changes it first: the recorder is the
    parent's, lock and all, so subagents running at once share it safely). The
    subagent's own prompt (its task) and its end do not touch the parent's log."""

    def __init__(self, parent: Checkpoints) -> None:
        self._parent = parent

    def begin_prompt(self, prompt_id: str, text: str) -> None:
        """The subagent's task: the person's prompt it serves stays the current one."""

    def before_write(self, paths: Sequence[Path]) -> None:
        self._parent.before_write(paths)

    def after_write(self, paths: Sequence[Path]) -> None:
        self._parent.after_write(paths)

    def conversation_rewound(self, prompt_id: str) -> None:
        """Never called for a subagent (only the person rewinds, the main conversation)."""

    def close(self) -> None:
        """The parent's recorder is closed with the parent's session."""


def subagent_checkpoints(parent: QueryEngine) -> UnderParentPrompt | None:
    """Where the subagent's file changes are recorded (None: the parent records none)."""
    return UnderParentPrompt(parent.checkpoints) if parent.checkpoints is not None else None


def catalog_of(engine: QueryEngine) -> AgentCatalog | None:
    """The agents `engine` can start (None: it has no Task tool)."""
    from agentcli.agents.task_tool import TaskTool

    task = engine.tools.get("Task")
    return task.launcher.catalog if isinstance(task, TaskTool) else None
