"""Skills: found in their folders, bad files reported, the Skill tool's answers."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentcli.config.paths import agentcli_home
from agentcli.core.abort import AbortSignal
from agentcli.skills.loader import load_skills, read_rules
from agentcli.skills.tool import SkillInput, SkillTool
from agentcli.tools.base import ToolContext, ToolError, Workspace


def skill(folder: Path, front: str, body: str = "Do it well.") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "SKILL.md").write_text(f"---\n{front}\n---\n{body}\n")
    return folder


def test_skills_from_the_three_folders_first_name_wins(tmp_path):
    skill(tmp_path / ".agentcli/skills/a", "name: pdf\ndescription: Fill PDF forms")
    skill(tmp_path / ".claude/skills/b", "name: pdf\ndescription: Another")
    skill(agentcli_home() / "skills/c", "name: notes\ndescription: Release notes")

    found = load_skills(tmp_path)

    assert [(s.name, s.scope) for s in found.skills] == [("pdf", "project"), ("notes", "user")]
    assert "b/SKILL.md: skipped, skill pdf is already defined by" in found.problems[0]
    [rule] = read_rules(found.skills)  # Read is allowed in the person's own skill folder
    assert str(rule) == f"Read(/{(agentcli_home() / 'skills/c').resolve()}/**)"


@pytest.mark.parametrize(
    ("front", "problem"),
    [
        ("description: no name", "the front matter has no `name`"),
        ("name: x", "the front matter has no `description`"),
        ("name: Bad Name\ndescription: d", "should be lowercase letters, digits and hyphens"),
        ("name: [x\ndescription: d", "broken front matter"),
    ],
)
def test_a_bad_skill_file_is_reported_and_skipped(tmp_path, front, problem):
    skill(tmp_path / ".claude/skills/bad", front)
    skill(tmp_path / ".claude/skills/good", "name: good\ndescription: fine")

    found = load_skills(tmp_path)

    assert [s.name for s in found.skills] == ["good"]
    [reported] = found.problems
    assert "bad/SKILL.md" in reported and problem in reported


async def test_the_tool_lists_skills_and_returns_a_body_and_its_folder(tmp_path):
    folder = skill(tmp_path / ".claude/skills/pdf", "name: pdf\ndescription: Fill PDF forms")
    tool = SkillTool(load_skills(tmp_path).skills)
    context = ToolContext(workspace=Workspace(root=tmp_path), abort=AbortSignal())

    assert "- pdf: Fill PDF forms" in tool.description
    result = await tool.run(SkillInput(skill="pdf"), context)
    assert f"Base directory for this skill: {folder.resolve()}" in result.content
    assert str(result.content).endswith("Do it well.")
    with pytest.raises(ToolError, match=r"No skill named 'nope'\. The skills are: pdf\."):
        await tool.run(SkillInput(skill="nope"), context)
