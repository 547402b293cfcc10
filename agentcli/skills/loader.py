"""Finding skills: `<folder>/<skill>/SKILL.md` files and what their front matter says.

Claude Code's format, so a team's `.claude/skills/` works as is: a folder per
skill, its `SKILL.md` with YAML front matter `name` (lowercase letters,
digits and hyphens) and `description` (what it is for and when to use it),
the instructions below, and any other files beside it.

Folders, the first of a name wins: `.agentcli/skills/` then
`.claude/skills/` in the project, then `$AGENTCLI_HOME/skills/`, then each
plugin's `skills/`, its skills named `plugin:skill` (which of them a session
reads is its `Places`, plugins/places.py). Only the
names and descriptions are read at start (they go into the context); a
skill's body is read when the model asks for it (skills/tool.py). A file
that cannot be used is reported, never fatal.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from pathlib import Path

from agentcli.config.frontmatter import FrontMatterError, read_markdown
from agentcli.config.paths import agentcli_home
from agentcli.config.rules import Rule
from agentcli.plugins.places import EVERYWHERE, Places

SKILL_FILE = "SKILL.md"
MAX_NAME_CHARS = 64
MAX_DESCRIPTION_CHARS = 1024
_NAME = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")


@dataclass(frozen=True, slots=True)
class Skill:
    name: str
    description: str
    folder: Path  # resolved: the model reads the skill's other files from here
    scope: str  # "project" | "user" | "plugin"

    @property
    def path(self) -> Path:
        return self.folder / SKILL_FILE


@dataclass
class Skills:
    skills: list[Skill] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def get(self, name: str) -> Skill | None:
        return next((skill for skill in self.skills if skill.name == name), None)


def skill_folders(root: Path, places: Places = EVERYWHERE) -> list[tuple[Path, str, str]]:
    """The folders looked in, in order of precedence, with their scope and the namespace
    of their skills' names ("" or `plugin:`)."""
    folders: list[tuple[Path, str, str]] = []
    if places.project:
        folders += [
            (root / ".agentcli" / "skills", "project", ""),
            (root / ".claude" / "skills", "project", ""),
        ]
    if places.user:
        folders.append((agentcli_home() / "skills", "user", ""))
    for plugin in places.plugins:
        folders += [(folder, "plugin", f"{plugin.name}:") for folder in plugin.skill_dirs]
    return folders


def load_skills(root: Path, places: Places = EVERYWHERE) -> Skills:
    found = Skills()
    for folder, scope, namespace in skill_folders(root, places):
        for path in sorted(folder.glob(f"*/{SKILL_FILE}")) if folder.is_dir() else []:
            try:
                skill = read_skill(path, scope)
            except FrontMatterError as problem:
                found.problems.append(f"{problem} (skill skipped)")
                continue
            if namespace:
                skill = replace(skill, name=namespace + skill.name)
            if (other := found.get(skill.name)) is not None:
                found.problems.append(
                    f"{path}: skipped, skill {skill.name} is already defined by {other.path}"
                )
                continue
            found.skills.append(skill)
    return found


def read_skill(path: Path, scope: str) -> Skill:
    """The skill of `path` (its SKILL.md). Raises FrontMatterError naming the file."""
    markdown = read_markdown(path)
    name = markdown.text("name")
    description = markdown.text("description")
    if name is None:
        raise FrontMatterError(f"{path}: the front matter has no `name`")
    if not _NAME.fullmatch(name) or len(name) > MAX_NAME_CHARS:
        raise FrontMatterError(
            f"{path}: name {name!r} should be lowercase letters, digits and hyphens "
            f"(at most {MAX_NAME_CHARS})"
        )
    if description is None:
        raise FrontMatterError(f"{path}: the front matter has no `description`")
    description = " ".join(description.split())[:MAX_DESCRIPTION_CHARS]
    return Skill(name, description, path.parent.resolve(), scope)


def skill_body(skill: Skill) -> str:
    """The instructions of `skill`, read now. Raises FrontMatterError."""
    return read_markdown(skill.path).body.strip()


def read_rules(skills: list[Skill]) -> list[Rule]:
    """Read allowed in the person's own skill folders and the plugins' (outside the
    project, where Read would ask), so the model can read the files a skill refers to. A project's skills
    are in the project, where reading is allowed already."""
    return [
        Rule("Read", f"/{skill.folder}/**", source="skill")
        for skill in skills
        if skill.scope in ("user", "plugin")
    ]
