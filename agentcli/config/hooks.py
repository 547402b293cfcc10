"""The `hooks` key of settings: which commands run at which events.

    "hooks": {
      "PreToolUse": [
        {"matcher": "Bash|Edit", "hooks": [{"type": "command", "command": "./check.sh",
                                            "timeout": 30}]}
      ]
    }

`matcher` is a regular expression matched against the whole tool name (empty
or `*` matches every tool); events without tools ignore it.
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


TOOL_EVENTS = frozenset({HookEvent.PRE_TOOL_USE, HookEvent.POST_TOOL_USE})


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

    def matches(self, tool_name: str | None) -> bool:
        if self.matcher in ("", "*") or tool_name is None:
            return True
        return re.fullmatch(self.matcher, tool_name) is not None


class HooksConfig(_Strict):
    """One list of matchers per event; the names are Claude Code's."""

    PreToolUse: list[HookMatcher] = Field(default_factory=list)
    PostToolUse: list[HookMatcher] = Field(default_factory=list)
    UserPromptSubmit: list[HookMatcher] = Field(default_factory=list)
    Stop: list[HookMatcher] = Field(default_factory=list)
    SessionStart: list[HookMatcher] = Field(default_factory=list)
    SessionEnd: list[HookMatcher] = Field(default_factory=list)
    Notification: list[HookMatcher] = Field(default_factory=list)

    @classmethod
    def none(cls) -> HooksConfig:
        """No hooks, made without validating (there is nothing to check): a run whose
        settings have no hooks never builds this model."""
        return cls.model_construct()

    def commands(self, event: HookEvent, tool_name: str | None = None) -> list[HookCommand]:
        """The commands to run for `event` (and this tool), without duplicates, in order."""
        found: list[HookCommand] = []
        seen: set[str] = set()
        for matcher in getattr(self, event.value):
            if event in TOOL_EVENTS and not matcher.matches(tool_name):
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
