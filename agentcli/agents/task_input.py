"""The Task tool's input model (agents/task_tool.py), apart because it is pydantic's:
it loads with the first Task call, not with the tool (whose schema is written out)."""

from __future__ import annotations

from pydantic import Field

from agentcli.tools.inputs import ToolInput


class TaskInput(ToolInput):
    description: str = Field(min_length=1, description="A short (3-5 word) description of the task")
    prompt: str = Field(min_length=1, description="The task for the agent to perform")
    subagent_type: str = Field(
        min_length=1, description="The type of specialized agent to use for this task"
    )
