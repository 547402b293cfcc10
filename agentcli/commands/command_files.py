"""Custom slash commands from markdown files: where they are and what they say.

The formats are Claude Code's, so a team's `.claude/commands/` works as is:
the file name is the command (`fix-issue.md` is `/fix-issue`); a sub-folder
namespaces it with a colon (`frontend/component.md` is
`/frontend:component`: a slash would read as a path); the YAML front matter
gives `description`, `argument-hint`, `allowed-tools` and `model`; the body
is the prompt (commands/expansion.py fills it in).

Folders, the first of a name wins: `.agentcli/commands/` then
`.claude/commands/` in the project, then `$AGENTCLI_HOME/commands/`, then each
plugin's `commands/`, whose names the plugin's name namespaces (`/plugin:command`);
which of them a session reads is its `Places` (plugins/places.py). A file
that cannot be used, and a name that another file (or a built-in command)
already holds, is reported, never fatal.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from agentcli.config.frontmatter import FrontMatterError, MarkdownFile, read_markdown
from agentcli.config.paths import agentcli_home
from agentcli.config.rules import Rule, RuleSyntaxError
from agentcli.plugins.places import EVERYWHERE, Places

PROJECT, USER = "project", "user"
MAX_DESCRIPTION_CHARS = 100
_NAME_PART = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")


@dataclass(frozen=True)
class CommandFile:
    """One command file, read. `name` has no slash; `scope` is "project" or "user"."""

    name: str
    path: Path
    scope: str
    body: str
    description: str = ""
    argument_hint: str = ""
    allowed_tools: tuple[Rule, ...] = ()
    model: str | None = None

    @property
    def shown_description(self) -> str:
        """What /help and completion show: the description and where the file is."""
        return f"{self.description} ({self.scope})" if self.description else f"({self.scope})"


@dataclass
class CommandFiles:
    commands: list[CommandFile] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    # A command no file defines because its file could not be read: name -> why.
    unusable: dict[str, str] = field(default_factory=dict)

    def get(self, name: str) -> CommandFile | None:
        return next((c for c in self.commands if c.name == name.lower()), None)


def command_folders(root: Path, places: Places = EVERYWHERE) -> list[tuple[Path, str, str]]:
    """The folders looked in, in order of precedence, with their scope and the namespace
    of their names ("" or `plugin:`)."""
    folders: list[tuple[Path, str, str]] = []
    if places.project:
        folders += [
            (root / ".agentcli" / "commands", PROJECT, ""),
            (root / ".claude" / "commands", PROJECT, ""),
        ]
    if places.user:
        folders.append((agentcli_home() / "commands", USER, ""))
    for plugin in places.plugins:
        folders += [
            (folder, f"plugin {plugin.name}", f"{plugin.name}:") for folder in plugin.command_dirs
        ]
    return folders


def load_command_files(
    root: Path, taken: Callable[[str], bool] = lambda _name: False, places: Places = EVERYWHERE
) -> CommandFiles:
    """Every usable command file under `root`'s folders, the person's and the plugins'.
    `taken(name)`: a name already used by a built-in command (the built-in keeps it)."""
    found = CommandFiles()
    for folder, scope, namespace in command_folders(root, places):
        for path in sorted(folder.rglob("*.md")) if folder.is_dir() else []:
            _add(found, root, folder, path, scope, taken, namespace)
    return found


def _add(
    found: CommandFiles,
    root: Path,
    folder: Path,
    path: Path,
    scope: str,
    taken: Callable[[str], bool],
    namespace: str = "",
) -> None:
    name = command_name(path.relative_to(folder))
    if name is not None:
        name = namespace.lower() + name
    if name is None:
        found.problems.append(f"{path}: skipped, a command name is letters, digits, `-`, `_`, `.`")
        return
    if taken(name):
        found.problems.append(f"{path}: skipped, /{name} is a built-in command")
        return
    if (other := found.get(name)) is not None:
        found.problems.append(f"{path}: skipped, /{name} is already defined by {other.path}")
        return
    try:
        command = read_command(name, path, scope, root, found.problems)
    except FrontMatterError as problem:
        found.problems.append(f"{problem} (command skipped)")
        found.unusable.setdefault(name, str(problem))
        return
    found.commands.append(command)


def command_name(relative: Path) -> str | None:
    """`frontend/component.md` -> `frontend:component`; None for a name that cannot be typed."""
    parts = [*relative.parent.parts, relative.stem]
    if not all(_NAME_PART.fullmatch(part) for part in parts):
        return None
    return ":".join(parts).lower()


def read_command(name: str, path: Path, scope: str, root: Path, problems: list[str]) -> CommandFile:
    """The command in `path`. Raises FrontMatterError; a bad `allowed-tools` entry is
    left out and reported in `problems`. Its path rules are relative to `root`."""
    markdown = read_markdown(path)
    return CommandFile(
        name=name,
        path=path,
        scope=scope,
        body=markdown.body.strip(),
        description=_description(markdown),
        argument_hint=markdown.text("argument-hint") or "",
        allowed_tools=_rules(markdown, root, problems),
        model=markdown.text("model"),
    )


def _description(markdown: MarkdownFile) -> str:
    """The front matter's description, else the body's first line (as Claude Code does)."""
    text = markdown.text("description")
    if text is None:
        lines = [line.strip().lstrip("#").strip() for line in markdown.body.splitlines()]
        text = next((line for line in lines if line), "")
    text = " ".join(text.split())
    if len(text) > MAX_DESCRIPTION_CHARS:
        return text[: MAX_DESCRIPTION_CHARS - 1] + "…"
    return text


def _rules(markdown: MarkdownFile, base: Path, problems: list[str]) -> tuple[Rule, ...]:
    rules = []
    for text in markdown.words("allowed-tools"):
        try:
            rules.append(Rule.parse(text, source=f"command {markdown.path.name}", base=base))
        except RuleSyntaxError as problem:
            problems.append(f"{markdown.path}: allowed-tools: {problem} (left out)")
    return tuple(rules)
