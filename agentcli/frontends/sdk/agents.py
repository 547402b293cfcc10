"""The program's own subagents: `initialize`'s `agents` (the SDK's `AgentDefinition`s).

Each entry names an agent the Task tool can start, as an agent file would:
`description`, `prompt` (its system prompt), `tools` (left out: every tool the
parent has), `disallowedTools` (taken away from those), `model` (`sonnet`,
`opus`, `haiku`, `inherit` or a model id) and `maxTurns`. They stand above the
agent files of the same name, as Claude Code's programmatic agents do. A field
agentcli does not use (`skills`, `memory`, `mcpServers`, `initialPrompt`,
`background`, `effort`, `permissionMode`) is named in a note; an entry that
cannot be used (no prompt, a tools list that is not names) is an error naming
the agent, and `initialize` fails with it, so a program never runs with an agent
silently missing.
"""

from __future__ import annotations

from typing import Any

from agentcli.agents.definitions import AgentDefinition, resolve_model

_USED = {"description", "prompt", "tools", "disallowedTools", "model", "maxTurns"}
_NOT_USED = {
    "skills",
    "memory",
    "mcpServers",
    "initialPrompt",
    "background",
    "effort",
    "permissionMode",
}


class AgentConfigError(ValueError):
    """`initialize`'s agents could not be read; the message names the agent."""


def sdk_agents(config: Any) -> tuple[list[AgentDefinition], list[str]]:
    """The agents of `initialize`, and notes for what agentcli leaves unused."""
    if config is None:
        return [], []
    if not isinstance(config, dict):
        raise AgentConfigError("initialize: agents must be an object of agent definitions")
    agents, notes = [], []
    for name, entry in config.items():
        if not isinstance(entry, dict):
            raise AgentConfigError(f"initialize: the agent {name!r} is not an object")
        agents.append(_agent(str(name), entry))
        unused = sorted(set(entry) & _NOT_USED)
        unknown = sorted(set(entry) - _USED - _NOT_USED)
        if unused:
            notes.append(f"the agent {name}: {', '.join(unused)} not used by agentcli")
        if unknown:
            notes.append(f"the agent {name}: unknown fields {', '.join(unknown)} ignored")
    return agents, notes


def _agent(name: str, entry: dict[str, Any]) -> AgentDefinition:
    prompt, description = entry.get("prompt"), entry.get("description")
    if not name.strip():
        raise AgentConfigError("initialize: an agent has an empty name")
    if not isinstance(prompt, str) or not prompt.strip():
        raise AgentConfigError(f"initialize: the agent {name!r} has no prompt")
    if not isinstance(description, str):
        raise AgentConfigError(f"initialize: the agent {name!r} has no description")
    model = entry.get("model")
    if model is not None and not isinstance(model, str):
        raise AgentConfigError(f"initialize: the agent {name!r}: model must be a name")
    turns = entry.get("maxTurns")
    if turns is not None and (isinstance(turns, bool) or not isinstance(turns, int) or turns < 1):
        raise AgentConfigError(f"initialize: the agent {name!r}: maxTurns must be at least 1")
    return AgentDefinition(
        name=name,
        description=description,
        system_prompt=prompt.strip(),
        tools=_names(name, "tools", entry.get("tools")),
        model=resolve_model(model or ""),
        source="the SDK program (initialize)",
        max_turns=turns,
        disallowed_tools=_names(name, "disallowedTools", entry.get("disallowedTools")) or (),
    )


def _names(agent: str, key: str, value: Any) -> tuple[str, ...] | None:
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise AgentConfigError(f"initialize: the agent {agent!r}: {key} must be a list of names")
    if key == "tools" and "*" in value:
        return None
    return tuple(dict.fromkeys(item.strip() for item in value if item.strip()))
