"""ExitPlanMode: the model presents its plan; the person approves it or keeps planning.

Approval itself goes through the permission gate (in plan mode this tool
always asks): approving once switches to the default mode, approving "for the
session" switches to acceptEdits, refusing keeps plan mode and the person's
words go back to the model. By the time `run()` is called, the plan has been
approved (or the session was not in plan mode).
"""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import Field

from agentcli.tools.base import Tool, ToolContext, ToolResult, Workspace
from agentcli.tools.display import PlanDisplay
from agentcli.tools.inputs import ToolInput

APPROVED = (
    "The user approved your plan. Plan mode is over: you can now make the changes, "
    "starting with the first step of the plan."
)


class ExitPlanModeInput(ToolInput):
    plan: str = Field(min_length=1, description="The plan to present, in concise markdown.")


class ExitPlanModeTool(Tool):
    name = "ExitPlanMode"
    input_model = ExitPlanModeInput
    read_only: ClassVar[bool] = True  # it may run while planning
    concurrency_safe: ClassVar[bool] = False
    prompt_file: ClassVar[str | None] = "exit_plan_mode.md"

    def summary(self, inp: Any, workspace: Workspace) -> str:
        first = inp.plan.strip().splitlines()[0] if inp.plan.strip() else ""
        return first[:79] + "…" if len(first) > 80 else first

    async def permission_preview(self, inp: Any, workspace: Workspace) -> PlanDisplay:
        """The whole plan: what the person approves."""
        return PlanDisplay(plan=inp.plan)

    async def run(self, inp: Any, ctx: ToolContext) -> ToolResult:
        return ToolResult(APPROVED, display=PlanDisplay(plan=inp.plan))
