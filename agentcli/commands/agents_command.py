"""`/agents`: the subagents the model can start with the Task tool, and where each comes from.

Lists the built-in agents and those of the agent files (the person's, the
project's `.claude/agents/` and `.agentcli/agents/`), with each one's tools
and model, then any agent file that could not be used and why. The text is
a plain function of the engine, so it is tested without the app.
"""

from __future__ import annotations

from typing import Any

from agentcli.agents.definitions import AgentCatalog, AgentDefinition, agent_folders
from agentcli.agents.sub_engine import catalog_of
from agentcli.commands.registry import NOT_READY, CommandContext, command


def agents_text(catalog: AgentCatalog | None, folders: list[str]) -> str:
    if catalog is None:
        return "Subagents are off in this session (the Task tool is not available)."
    lines = ["**Subagents** (the model starts them with the Task tool)", ""]
    lines += [_line(agent) for agent in catalog.agents]
    if catalog.problems:
        lines += ["", "**Agent files that could not be used**", ""]
        lines += [f"- {problem}" for problem in catalog.problems]
    lines += ["", "Add one as a markdown file in " + ", ".join(f"`{f}`" for f in folders) + "."]
    return "\n".join(lines)


def _line(agent: AgentDefinition) -> str:
    tools = ", ".join(agent.tools) if agent.tools is not None else "all tools"
    model = f" · model `{agent.model}`" if agent.model else ""
    model += f" · at most {agent.max_turns} turns" if agent.max_turns else ""
    where = "built-in" if agent.source == "built-in" else f"`{agent.source}`"
    return f"- `{agent.name}` — {agent.description} ({tools}{model}; {where})"


@command(
    "agents",
    "List the subagents the model can start (built-in and from agent files)",
    frontends=("tui", "print"),
)
async def agents_command(ctx: CommandContext) -> None:
    engine: Any = ctx.engine
    if engine is None:
        ctx.error(NOT_READY)
        return
    folders = [str(folder) for folder in agent_folders(engine.workspace.root)]
    ctx.output(agents_text(catalog_of(engine), folders))
