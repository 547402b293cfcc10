"""A permission question and its answer, as data every front end reads
(permissions/types.py has the rest of the vocabulary).

Apart from permissions/types.py because they are pydantic models: they load when a
question is first asked (or a subagent, whose questions name it, starts).
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, JsonValue, SerializeAsAny

from agentcli.permissions.types import Scope
from agentcli.tools.display import ToolDisplay

LABEL_DESCRIPTION_CHARS = 60


class PermissionOption(BaseModel):
    """An answer that allows the call, as the question offers it: "once" (always
    offered), "session" and "always" (when they mean something for this call). A
    refusal and an interrupt are always possible and are not listed. (ACP's
    allow_once / allow_always options; its reject_once is the refusal.)"""

    model_config = ConfigDict(frozen=True, defer_build=True)

    scope: Scope
    label: str


class Asker(BaseModel):
    """The subagent whose call a question is about: its kind, its Task call's
    description (how a person tells several subagents of one kind apart), and its id
    (the name of its transcript; the Agent SDK's `agent_id`). The description is the
    model's words: shown on one line, cut short, and escaped by each front end."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    agent_type: str
    description: str
    agent_id: str

    def label(self) -> str:
        """`subagent 'find config' (Explore)`: how every front end names it."""
        words = " ".join(self.description.split())
        if len(words) > LABEL_DESCRIPTION_CHARS:
            words = words[: LABEL_DESCRIPTION_CHARS - 1] + "…"
        return f"subagent '{words}' ({self.agent_type})"


class PermissionRequest(BaseModel):
    """What the person is asked about: all a front end needs to show the question,
    as data that dumps to JSON (`model_dump(mode="json")`) for an SDK or ACP client."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    tool_name: str
    tool_use_id: str
    input: dict[str, JsonValue]
    title: str  # the heading: "Edit file", "Bash command", "Use Grep"
    summary: str
    reason: str
    subject: str | None = None  # Bash: the command
    path: Path | None = None
    # From the tool (Edit, Write: the diff it will make, with real line numbers).
    preview: SerializeAsAny[ToolDisplay] | None = None
    rules: tuple[str, ...] = ()  # what a "session" or "always" answer would allow from now on
    options: tuple[PermissionOption, ...] = ()
    asked_by: Asker | None = None  # a subagent's call; None: the main conversation's


class PermissionAnswer(BaseModel):
    """The person's answer. `interrupt` (Esc at the question) refuses this call and
    stops the whole turn: nothing else runs, and the model is not asked again
    until the person writes. A plain refusal lets the turn carry on."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    allow: bool
    scope: Scope = "once"
    feedback: str | None = None
    interrupt: bool = False
    # An allow with the call's input changed (the Agent SDK's `updatedInput`): the call
    # runs with it, validated like the model's own input.
    updated_input: dict[str, JsonValue] | None = None
