"""What a subagent's engine is made of beyond the parent's parts: its tools and its prompt.

The composition root (`composition.assemble_subagent`) builds the engine; the
choices specific to subagents live here. A subagent never gets Task (no
subagents of subagents), TodoWrite (the checklist is the main conversation's,
shown to the person) or ExitPlanMode (leaving plan mode is the person's
call, and the mode is shared). An agent with a `tools` list gets only those
of the parent's tools, MCP servers' tools included when named; one without
gets them all, MCP servers' as they come and go.
"""

from __future__ import annotations

import platform
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentcli.agents.definitions import AgentCatalog, AgentDefinition
from agentcli.engine.caching import mark_system
from agentcli.tools.registry import ToolRegistry

if TYPE_CHECKING:
    from agentcli.engine.query_engine import QueryEngine
    from agentcli.mcp.manager import McpManager

NOT_FOR_SUBAGENTS = frozenset({"Task", "TodoWrite", "ExitPlanMode"})


def subagent_tools(
    agent: AgentDefinition, parent: QueryEngine
) -> tuple[ToolRegistry, McpManager | None]:
    """The subagent's tools, and the MCP manager whose tools join them at each request
    (None when the agent names its tools)."""
    own = [tool for tool in parent.tools if tool.name not in NOT_FOR_SUBAGENTS]
    if agent.tools is None:
        return ToolRegistry(own), parent.mcp
    servers = parent.mcp.tools() if parent.mcp is not None else []
    wanted = set(agent.tools) - NOT_FOR_SUBAGENTS
    return ToolRegistry(t for t in [*own, *servers] if t.name in wanted), None


def subagent_system(agent: AgentDefinition, root: Path) -> list[dict[str, Any]]:
    """The agent's own prompt, then where it works (byte-stable for the run)."""
    where = (
        "Environment:\n"
        f"- Working directory (the project folder): {root}\n"
        f"- Platform: {platform.system()} {platform.release()}\n"
        f"- Today's date: {date.today().isoformat()}"
    )
    return mark_system([{"type": "text", "text": f"{agent.system_prompt}\n\n{where}"}])


def catalog_of(engine: QueryEngine) -> AgentCatalog | None:
    """The agents `engine` can start (None: it has no Task tool)."""
    from agentcli.agents.task_tool import TaskTool

    task = engine.tools.get("Task")
    return task.launcher.catalog if isinstance(task, TaskTool) else None
