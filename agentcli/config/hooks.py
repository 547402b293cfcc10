"""The `hooks` key of settings: which commands run at which events.

    "hooks": {
      "PreToolUse": [
        {"matcher": "Bash|Edit", "hooks": [{"type": "command", "command": "./check.sh",
                                            "timeout": 30}]}
      ]
    }

`matcher` is a regular expression matched against the whole of what the
event is about (empty or `*` matches everything): the tool name for the tool
events, `notification_type` for Notification, `trigger` (manual/auto) for
PreCompact/PostCompact, `agent_type` for SubagentStart/SubagentStop, `source`
for SessionStart and `reason` for SessionEnd, as in Claude Code. The other
events (UserPromptSubmit, Stop) ignore it.

The events and `NO_HOOKS` (a session without hooks, made without pydantic) are in
config/hook_events.py, which every start imports; this module loads when there are
hooks to read.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict, Field, field_validator

from agentcli.config.hook_events import DEFAULT_TIMEOUT_S as DEFAULT_TIMEOUT_S
from agentcli.config.hook_events import TOOL_EVENTS as TOOL_EVENTS
from agentcli.config.hook_events import HookEvent as HookEvent


class HookTable(Protocol):
    """The hooks a session runs, by event: a validated `HooksConfig`, or `NO_HOOKS`."""

    def commands(self, event: HookEvent, subject: str | None = None) -> Sequence[HookCommand]: ...

    def merged(self, other: HookTable) -> HookTable: ...

    def is_empty(self) -> bool: ...

    def model_dump(self, *, exclude_none: bool = False) -> dict[str, Any]: ...


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", defer_build=True)


class HookCommand(_Strict):
    type: str = Field("command", pattern="^command$", description='only "command"')
    command: str = Field(min_length=1)
    timeout: float | None = Field(None, gt=0, description="seconds (default 60)")

    @property
    def timeout_s(self) -> float:
        return self.timeout or DEFAULT_TIMEOUT_S


class HookMatcher(_Strict):
    matcher: str = ""
    hooks: list[HookCommand]

    @field_validator("matcher")
    @classmethod
    def _valid_regex(cls, value: str) -> str:
        if value not in ("", "*"):
            try:
                re.compile(value)
            except re.error as exc:
                raise ValueError(f"not a valid regular expression: {exc}") from exc
        return value

    def matches(self, subject: str | None) -> bool:
        """Whether this matcher applies to `subject` (None: the event has none)."""
        if self.matcher in ("", "*") or subject is None:
            return True
        return re.fullmatch(self.matcher, subject) is not None


class HooksConfig(_Strict):
    """One list of matchers per event; the names are Claude Code's."""

    PreToolUse: list[HookMatcher] = Field(default_factory=list)
    PostToolUse: list[HookMatcher] = Field(default_factory=list)
    UserPromptSubmit: list[HookMatcher] = Field(default_factory=list)
    Stop: list[HookMatcher] = Field(default_factory=list)
    SessionStart: list[HookMatcher] = Field(default_factory=list)
    SessionEnd: list[HookMatcher] = Field(default_factory=list)
    Notification: list[HookMatcher] = Field(default_factory=list)
    PostToolUseFailure: list[HookMatcher] = Field(default_factory=list)
    PermissionRequest: list[HookMatcher] = Field(default_factory=list)
    SubagentStart: list[HookMatcher] = Field(default_factory=list)
    SubagentStop: list[HookMatcher] = Field(default_factory=list)
    PreCompact: list[HookMatcher] = Field(default_factory=list)
    PostCompact: list[HookMatcher] = Field(default_factory=list)

    @classmethod
    def none(cls) -> HooksConfig:
        """No hooks, made without validating (there is nothing to check): a run whose
        settings have no hooks never builds this model."""
        return cls.model_construct()

    def commands(self, event: HookEvent, subject: str | None = None) -> list[HookCommand]:
        """The commands to run for `event` (about `subject`: a tool name, a trigger...),
        without duplicates, in order."""
        found: list[HookCommand] = []
        seen: set[str] = set()
        for matcher in getattr(self, event.value):
            if not matcher.matches(subject):
                continue
            for hook in matcher.hooks:
                if hook.command not in seen:
                    seen.add(hook.command)
                    found.append(hook)
        return found

    def merged(self, other: HookTable) -> HookTable:
        """This config's hooks followed by `other`'s (settings layers add up)."""
        if other.is_empty():
            return self
        return HooksConfig(
            **{e.value: getattr(self, e.value) + getattr(other, e.value) for e in HookEvent}
        )

    def is_empty(self) -> bool:
        return not any(getattr(self, e.value) for e in HookEvent)
