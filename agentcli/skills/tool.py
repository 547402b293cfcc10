"""The Skill tool: the model loads a skill's instructions when a task matches it.

The tool's description lists every skill's name and description, so the
list is in the context from the first request, and it is fixed for the
session (skills are found at start): the tool definitions are part of the
cached prompt prefix and stay byte-identical. Calling it returns the skill's
body, read now, with its folder, so the model can Read the other files the
body refers to (bootstrap allows Read there for the person's own skills,
which live outside the project).
"""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import Field

from agentcli.config.frontmatter import FrontMatterError
from agentcli.skills.loader import Skill, skill_body
from agentcli.tools.base import Tool, ToolContext, ToolError, ToolResult
from agentcli.tools.inputs import ToolInput

ABOUT = """\
Load a skill: instructions (and files beside them) for a particular kind of task.
When the user's request matches one of the skills below, call this tool with its name
before doing the task, then follow what it returns. Do not load a skill that does not
fit the task, nor one already loaded in this conversation.

Available skills:"""


class SkillInput(ToolInput):
    skill: str = Field(description="The name of the skill to load, as listed.")


class SkillTool(Tool):
    name = "Skill"
    input_model = SkillInput
    read_only: ClassVar[bool] = True
    concurrency_safe: ClassVar[bool] = True

    def __init__(self, skills: list[Skill]) -> None:
        self.skills = {skill.name: skill for skill in skills}

    @property
    def description(self) -> str:
        listed = [f"- {skill.name}: {skill.description}" for skill in self.skills.values()]
        return "\n".join([ABOUT, *listed])

    def summary(self, inp: Any, workspace: Any) -> str:
        return str(inp.skill)

    async def run(self, inp: SkillInput, ctx: ToolContext) -> ToolResult:
        skill = self.skills.get(inp.skill)
        if skill is None:
            names = ", ".join(self.skills) or "none"
            raise ToolError(f"No skill named {inp.skill!r}. The skills are: {names}.")
        try:
            body = skill_body(skill)
        except FrontMatterError as problem:
            raise ToolError(f"The skill could not be loaded: {problem}") from None
        return ToolResult(
            f"Base directory for this skill: {skill.folder}\n"
            "(paths in it are relative to that folder; Read them as you need them)\n\n"
            f"{body}"
        )


def skill_tools(skills: list[Skill]) -> list[Tool]:
    """The Skill tool when there are skills (none offered otherwise)."""
    return [SkillTool(skills)] if skills else []
