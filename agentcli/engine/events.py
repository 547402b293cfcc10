"""The events `query()` yields, one small frozen class per kind.

`Event` is the closed union of them all. Consumers (the Textual app, headless
and stream-json output, ACP) dispatch with `match event:` and end it with
`case _: assert_never(event)` (or list the kinds they leave alone), so adding a
kind here makes mypy name every dispatcher that does not handle it yet.
Messages travel in the Messages API's own shape (core/messages.py: typed
dicts), because that is what goes back to the model and into the transcript;
no conversion layer sits between what the UI shows and what the model sees.

The loop's termination reason is the *last* event, `TurnEnded`, since Python
async generators cannot return a value.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Literal

from agentcli.core.messages import Message, ToolResultBlock
from agentcli.core.usage import Usage
from agentcli.permissions.question import PermissionQuestion
from agentcli.providers.retry import format_seconds

if TYPE_CHECKING:
    from agentcli.tools.display import LiveOutput, ToolDisplay


class EndReason(StrEnum):
    """Why a run of the loop stopped."""

    COMPLETED = "completed"
    MAX_TURNS = "max_turns"
    ABORTED_STREAMING = "aborted_streaming"
    ABORTED_TOOLS = "aborted_tools"
    MODEL_ERROR = "model_error"
    HOOK_STOPPED = "hook_stopped"
    STOP_HOOK_PREVENTED = "stop_hook_prevented"


# How a tool call ended: it ran and succeeded, ran and failed (or could not run: an
# unknown tool, bad input), was refused (a rule, the person, a hook), or was stopped.
ToolStatus = Literal["done", "failed", "denied", "interrupted"]
# How much a notice matters to the person (front ends show warnings and errors always).
NoticeLevel = Literal["info", "warning", "error"]


@dataclass(frozen=True, slots=True)
class RequestStarted:
    """The loop is about to call the model (once per turn)."""

    turn: int


@dataclass(frozen=True, slots=True)
class TextDelta:
    """A piece of assistant text as it streams in."""

    text: str
    index: int = 0


@dataclass(frozen=True, slots=True)
class ThinkingDelta:
    """A piece of extended-thinking text as it streams in."""

    text: str
    index: int = 0


@dataclass(frozen=True, slots=True)
class ApiRetry:
    """A model request failed in a retryable way; the provider waits and tries again."""

    attempt: int
    max_retries: int
    delay_s: float
    error: str
    status: int | None = None

    def describe(self) -> str:
        """`retrying in 4 s (2/8): connection refused`: the words every front end shows."""
        delay = format_seconds(self.delay_s)
        return f"retrying in {delay} ({self.attempt}/{self.max_retries}): {self.error}"


@dataclass(frozen=True, slots=True)
class AssistantMessage:
    """A complete assistant message, as appended to the conversation."""

    message: Message
    usage: Usage
    stop_reason: str | None
    model: str
    message_id: str | None = None  # the API's id of the response, when it gave one


@dataclass(frozen=True, slots=True)
class ToolCallStarted:
    """The model asked for a tool; it is queued, and may wait for permission."""

    tool_use_id: str
    name: str
    input: dict[str, Any]
    summary: str = ""


@dataclass(frozen=True, slots=True)
class ToolPermissionRequested:
    """The tool waits for the person to allow or deny it. The front end shows
    `question.request` and answers with `question.answer(...)`; every front end must
    answer (permissions/question.py). One question is open at a time."""

    question: PermissionQuestion

    @property
    def tool_use_id(self) -> str:
        return self.question.request.tool_use_id

    @property
    def name(self) -> str:
        return self.question.request.tool_name


@dataclass(frozen=True, slots=True)
class ToolCallRunning:
    """Permission was granted (or not needed) and the tool is now running."""

    tool_use_id: str
    name: str


@dataclass(frozen=True, slots=True)
class ToolCallProgress:
    """Something a running tool reported (for Bash: new output)."""

    tool_use_id: str
    data: LiveOutput


@dataclass(frozen=True, slots=True)
class ToolCallFinished:
    """A tool call ended, one way or another; `result` is what the model gets."""

    tool_use_id: str
    name: str
    result: ToolResultBlock
    is_error: bool
    status: ToolStatus
    display: ToolDisplay | None = None  # for the person: tools/display.py


@dataclass(frozen=True, slots=True)
class UserMessage:
    """A user-role message the loop added: the tool results of a turn (in call order,
    in one message), or the marker that the person interrupted."""

    message: Message


@dataclass(frozen=True, slots=True)
class Notice:
    """Something the person should know that is not part of the conversation."""

    text: str
    level: NoticeLevel = "info"


@dataclass(frozen=True, slots=True)
class TurnEnded:
    """Always the last event of `query()`: why the loop stopped."""

    reason: EndReason
    turns: int
    usage: Usage = field(default_factory=Usage)
    error: str | None = None


@dataclass(frozen=True, slots=True)
class SubagentEvent:
    """An event of a subagent's engine (started by the parent's `Task` call
    `parent_tool_use_id`), passed on in the parent's stream so a front end can show
    its progress. A front end that does not know it may ignore it: a subagent's
    permission questions travel unwrapped (`ToolPermissionRequested`, with
    `request.asked_by` set), so every front end answers them."""

    parent_tool_use_id: str
    agent_type: str
    description: str
    event: Event


Event = (
    RequestStarted
    | TextDelta
    | ThinkingDelta
    | ApiRetry
    | AssistantMessage
    | ToolCallStarted
    | ToolPermissionRequested
    | ToolCallRunning
    | ToolCallProgress
    | ToolCallFinished
    | UserMessage
    | Notice
    | TurnEnded
    | SubagentEvent
)
