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
"""

from __future__ import annotations

import re
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field, field_validator

DEFAULT_TIMEOUT_S = 60.0


class HookEvent(StrEnum):
    PRE_TOOL_USE = "PreToolUse"
    POST_TOOL_USE = "PostToolUse"
    USER_PROMPT_SUBMIT = "UserPromptSubmit"
    STOP = "Stop"
    SESSION_START = "SessionStart"
    SESSION_END = "SessionEnd"
    NOTIFICATION = "Notification"
    POST_TOOL_USE_FAILURE = "PostToolUseFailure"
    PERMISSION_REQUEST = "PermissionRequest"
    SUBAGENT_START = "SubagentStart"
    SUBAGENT_STOP = "SubagentStop"
    PRE_COMPACT = "PreCompact"
    POST_COMPACT = "PostCompact"


# The events about one tool call (their matchers name tools; a subagent's payload
# names the subagent too).
TOOL_EVENTS = frozenset(
    {
        HookEvent.PRE_TOOL_USE,
        HookEvent.POST_TOOL_USE,
        HookEvent.POST_TOOL_USE_FAILURE,
        HookEvent.PERMISSION_REQUEST,
    }
)


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

    def merged(self, other: HooksConfig) -> HooksConfig:
        """This config's hooks followed by `other`'s (settings layers add up)."""
        return HooksConfig(
            **{e.value: getattr(self, e.value) + getattr(other, e.value) for e in HookEvent}
        )

    def is_empty(self) -> bool:
        return not any(getattr(self, e.value) for e in HookEvent)
