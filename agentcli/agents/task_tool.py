"""Task: the model hands a self-contained task to a subagent and gets its answer back.

The subagent runs with its own conversation, system prompt and tools
(agents/launcher.py); its final message is this call's result. The tool is
concurrency-safe, so several Task calls of one reply run together; the
subagents' own calls still go through the permission gate one by one, which
is also why Task itself needs no permission (it is read-only as far as the
gate is concerned, and runs in plan mode, where the subagents' edits are
refused like the parent's).

The description the model reads lists the agents the session can start; it
is fixed when the session starts, so the cached tool list stays the same.
"""

from __future__ import annotations

from typing import Any, ClassVar

from agentcli.agents.definitions import AgentDefinition
from agentcli.agents.launcher import SubagentLauncher, SubagentRun
from agentcli.engine.events import EndReason
from agentcli.tools.base import (
    InputModelAt,
    Tool,
    ToolContext,
    ToolError,
    ToolResult,
    Workspace,
    load_prompt,
)

TASK_TOOL = "Task"


# TaskInput's (agents/task_input.py) schema as `input_schema(TaskInput)` gives it, written out so that offering
# the tool does not build the model (a run that starts no subagent never validates one);
# tests/agents/test_task_tool.py checks that the two agree.
TASK_INPUT_SCHEMA: dict[str, Any] = {
    "additionalProperties": False,
    "properties": {
        "description": {
            "description": "A short (3-5 word) description of the task",
            "minLength": 1,
            "type": "string",
        },
        "prompt": {
            "description": "The task for the agent to perform",
            "minLength": 1,
            "type": "string",
        },
        "subagent_type": {
            "description": "The type of specialized agent to use for this task",
            "minLength": 1,
            "type": "string",
        },
    },
    "required": ["description", "prompt", "subagent_type"],
    "type": "object",
}


class TaskTool(Tool):
    name = TASK_TOOL
    input_model = InputModelAt("agentcli.agents.task_input:TaskInput")
    read_only: ClassVar[bool] = True
    concurrency_safe: ClassVar[bool] = True
    permission_title: ClassVar[str] = "Start a subagent"

    def __init__(self, launcher: SubagentLauncher) -> None:
        self.launcher = launcher

    @property
    def description(self) -> str:
        agents = "\n".join(_listing(agent) for agent in self.launcher.catalog.agents)
        return load_prompt("task.md").replace("{agents}", agents)

    def schema(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "description": self.description,
            "input_schema": TASK_INPUT_SCHEMA,
        }

    def summary(self, inp: Any, workspace: Workspace) -> str:
        return f"{inp.subagent_type}: {inp.description}"

    async def run(self, inp: Any, ctx: ToolContext) -> ToolResult:
        agent = self.launcher.catalog.get(inp.subagent_type)
        if agent is None:
            known = ", ".join(self.launcher.catalog.names())
            raise ToolError(
                f"No agent type {inp.subagent_type!r}. The available types are: {known}."
            )
        if ctx.emit is None:  # a subagent's questions could reach nobody
            raise ToolError("Task can only run inside an agentcli session.")
        run = await self.launcher.run(agent, inp.description, inp.prompt, ctx, ctx.emit)
        return ToolResult(_result_text(run), is_error=not run.completed, display=run.display())


def _listing(agent: AgentDefinition) -> str:
    tools = ", ".join(agent.tools) if agent.tools is not None else "all tools"
    return f"- {agent.name}: {agent.description} (Tools: {tools})"


def _result_text(run: SubagentRun) -> str:
    """Its answer; or why it did not finish, with what it had said by then (a subagent
    stopped at its turn limit may have found most of what was asked)."""
    if run.completed:
        return run.answer or "(the subagent finished without a final message)"
    said = f"\n\nIts last message:\n{run.answer}" if run.answer else ""
    if run.reason is EndReason.MAX_TURNS:
        limit = f"its limit of {run.max_turns} turns" if run.max_turns else "its turn limit"
        return f"The {run.agent.name} subagent stopped at {limit} before it finished.{said}"
    why = run.error or (run.reason.value if run.reason else "it was interrupted")
    return f"The {run.agent.name} subagent did not finish: {why}.{said}"
