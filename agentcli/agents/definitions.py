"""The kinds of subagent the Task tool can start: two built in, and those from files.

A custom agent is a markdown file with YAML front matter, Claude Code's
format: `name`, `description`, `tools` (a comma list or a YAML list; left
out, every tool), `model` (`sonnet`, `opus`, `haiku`, `inherit`, or a full
model id), `maxTurns` (the most model requests it may make; left out,
agents/sub_engine.py's default); the body is its system prompt. Of the files
that name one agent the first wins, looking in the project's
`.agentcli/agents/`, then its `.claude/agents/`, then `$AGENTCLI_HOME/agents/`
(the person's), each folder in file-name order: the project beats the person
and `.agentcli/` beats `.claude/`, and a file may replace a built-in agent. A
file that cannot be used, and one whose agent another file already defines,
is skipped and named in `AgentCatalog.problems` with the reason, as command
files are (shown at start and by `/agents`). Below them all come the plugins'
`agents/` folders, each agent named `plugin:agent`; above them all, the agents a
program defines (the SDK's `agents`, frontends/sdk/agents.py). Which folders a
session reads is its `Places` (plugins/places.py: `--setting-sources`, plugins).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from agentcli.config.frontmatter import FrontMatterError, read_markdown
from agentcli.config.paths import agentcli_home
from agentcli.plugins.places import EVERYWHERE, Places

GENERAL_PURPOSE = "general-purpose"
EXPLORE = "Explore"
EXPLORE_TOOLS = ("Glob", "Grep", "Read")  # nothing that writes or runs commands

# `model:` shorthands, as in Claude Code's agent files.
MODEL_ALIASES = {
    "sonnet": "claude-sonnet-5-5",
    "opus": "claude-opus-4-1",
    "haiku": "claude-haiku-4-5",
}
# color: Claude Code's, unused
_KEYS = {"name", "description", "tools", "model", "maxTurns", "color"}


@dataclass(frozen=True, slots=True)
class AgentDefinition:
    """One kind of subagent. `tools` None: every tool the parent has (but Task);
    `model` None: the parent's model; `max_turns` None: the default bound."""

    name: str
    description: str
    system_prompt: str
    tools: tuple[str, ...] | None = None
    model: str | None = None
    source: str = "built-in"
    max_turns: int | None = None
    disallowed_tools: tuple[str, ...] = ()  # taken away from `tools` (the SDK's agents)


@dataclass(frozen=True, slots=True)
class AgentCatalog:
    """The agents a session can start, by name, and the files that could not be used."""

    agents: tuple[AgentDefinition, ...]
    problems: tuple[str, ...] = ()

    def get(self, name: str) -> AgentDefinition | None:
        return next((agent for agent in self.agents if agent.name == name), None)

    def names(self) -> list[str]:
        return [agent.name for agent in self.agents]


def builtin_agents() -> tuple[AgentDefinition, ...]:
    return (
        AgentDefinition(
            GENERAL_PURPOSE,
            "General-purpose agent for researching complex questions, searching for code "
            "and carrying out multi-step tasks. Has every tool.",
            _prompt("general_purpose.md"),
        ),
        AgentDefinition(
            EXPLORE,
            "Fast read-only agent for exploring a codebase: finding files, searching "
            "code, answering questions about how it works. It cannot change anything.",
            _prompt("explore.md"),
            tools=EXPLORE_TOOLS,
        ),
    )


def agent_folders(project: Path, places: Places = EVERYWHERE) -> list[Path]:
    """Where the person's and the project's agent files live, lowest precedence first."""
    folders = [agentcli_home() / "agents"] if places.user else []
    if places.project:
        folders += [project / ".claude" / "agents", project / ".agentcli" / "agents"]
    return folders


def load_agents(
    project: Path,
    places: Places = EVERYWHERE,
    programmatic: Sequence[AgentDefinition] = (),
) -> AgentCatalog:
    """The built-in agents, the plugins' and every usable agent file of the person and
    the project, under `programmatic` (a program's own, which win on a name)."""
    files: dict[str, AgentDefinition] = {}
    problems: list[str] = []
    sources = [(path, "") for path in _agent_files(reversed(agent_folders(project, places)))]
    for plugin in places.plugins:
        sources += [(path, f"{plugin.name}:") for path in _agent_files(plugin.agent_dirs)]
    for path, namespace in sources:
        try:
            agent = parse_agent_file(path)
        except FrontMatterError as exc:  # its message names the file
            problems.append(f"{exc}; the agent file was skipped")
            continue
        except AgentFileError as exc:
            problems.append(f"{path}: {exc}; the agent file was skipped")
            continue
        if namespace:
            agent = replace(agent, name=namespace + agent.name)
        winner = files.get(agent.name)
        if winner is not None:
            problems.append(
                f"{path}: the agent `{agent.name}` is already defined by {winner.source}; "
                "the agent file was skipped"
            )
            continue
        files[agent.name] = agent
    found = {agent.name: agent for agent in builtin_agents()} | files
    found |= {agent.name: agent for agent in programmatic}
    return AgentCatalog(tuple(found.values()), tuple(problems))


def _agent_files(folders: Iterable[Path]) -> list[Path]:
    return [path for folder in folders if folder.is_dir() for path in sorted(folder.glob("*.md"))]


class AgentFileError(ValueError):
    """An agent file's front matter says something unusable (the message says what)."""


def parse_agent_file(path: Path) -> AgentDefinition:
    markdown = read_markdown(path)
    meta, body = markdown.meta, markdown.body
    unknown = sorted(set(meta) - _KEYS)
    if unknown:
        raise AgentFileError(
            f"unknown front matter keys {unknown} (name, description, tools, model, maxTurns)"
        )
    name = _text(meta, "name", required=True)
    if not name.replace("-", "").replace("_", "").isalnum():
        raise AgentFileError(f"the name {name!r} may hold only letters, digits, '-' and '_'")
    if not body.strip():
        raise AgentFileError("the body (the agent's system prompt) is empty")
    return AgentDefinition(
        name=name,
        description=_text(meta, "description", required=True),
        system_prompt=body.strip(),
        tools=_tools(meta.get("tools")),
        model=_model(_text(meta, "model")),
        source=str(path),
        max_turns=_max_turns(meta.get("maxTurns")),
    )


def _text(meta: dict[str, Any], key: str, *, required: bool = False) -> str:
    value = meta.get(key)
    if value is None:
        if required:
            raise AgentFileError(f"the front matter has no {key!r}")
        return ""
    if not isinstance(value, str) or (required and not value.strip()):
        raise AgentFileError(f"{key!r} must be a non-empty text")
    return value.strip()


def _tools(value: Any) -> tuple[str, ...] | None:
    if value is None:
        return None
    if isinstance(value, str):
        names = [name.strip() for name in value.split(",")]
    elif isinstance(value, list) and all(isinstance(name, str) for name in value):
        names = [name.strip() for name in value]
    else:
        raise AgentFileError("'tools' must be a comma-separated list or a YAML list of names")
    names = [name for name in names if name]
    if not names:
        raise AgentFileError("'tools' names no tool (leave it out for every tool)")
    if "*" in names:
        return None
    return tuple(dict.fromkeys(names))


def _max_turns(value: Any) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise AgentFileError(f"'maxTurns' must be a whole number of at least 1, not {value!r}")
    return value


def resolve_model(value: str) -> str | None:
    """A `model:` value as a model id; None (the parent's) for `inherit` or none."""
    return _model(value)


def _model(value: str) -> str | None:
    if value in ("", "inherit"):
        return None
    return MODEL_ALIASES.get(value, value)


def _prompt(filename: str) -> str:
    return (Path(__file__).with_name("prompts") / filename).read_text("utf-8").strip()
