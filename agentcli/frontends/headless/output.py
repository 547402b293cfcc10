"""The three headless output formats, as `claude -p` users script against them.

- text: the final answer on stdout.
- json: one result object at the end.
- stream-json: one JSON object a line as things happen (init, assistant and
  user messages in API shape, retries), then the result object. The Agent
  SDK's front end (agentcli/frontends/sdk/) writes the same lines, one result per turn,
  and asks for `stream_event` lines (`partial`) with --include-partial-messages. A message
  carries `parent_tool_use_id`: the Task call whose subagent said it, or null
  for the main conversation's (Claude Code's field).

Text written to a terminal is shown to a person: the answer (text format) and
every stderr line go through `terminal_plain` there, so nothing the model, a
tool, a hook or a server wrote can control that terminal. Written to a pipe
or a file, the text goes out unchanged: a script may want the bytes. JSON
escapes C0 controls by itself but writes DEL and the C1 controls (U+009B is
an 8-bit CSI) as they are: those are escaped too (`\\u009b`), which changes no
value a JSON reader gets.
"""

from __future__ import annotations

import re
import sys
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TextIO, assert_never

from agentcli import __version__
from agentcli.core.wellformed import json_line as json_text
from agentcli.engine.compaction import Compacted, CompactionReport
from agentcli.engine.events import (
    ApiRetry,
    AssistantMessage,
    EndReason,
    Event,
    Notice,
    RequestStarted,
    SubagentEvent,
    TextDelta,
    ThinkingDelta,
    ToolCallFinished,
    ToolCallProgress,
    ToolCallRunning,
    ToolCallStarted,
    ToolPermissionRequested,
    TurnEnded,
    UserMessage,
)
from agentcli.frontends.output_streams import Stdout, say

if TYPE_CHECKING:
    from agentcli.core.usage import Usage
    from agentcli.frontends.driver.tally import TurnTally


@dataclass(frozen=True, slots=True)
class Ending:
    """A front end's own end of a turn, over the loop's: `error_max_budget_usd` with
    `terminal_reason: budget_exhausted`, as Claude Code spells them; `message` is the
    result's error. No `terminal_reason` for an end outside the loop (a command)."""

    subtype: str
    terminal_reason: str | None
    message: str


def over_budget(budget: float) -> Ending:
    """The turn stopped because the session has spent `budget` dollars."""
    amount = f"{budget:.10f}".rstrip("0").rstrip(".") or "0"
    return Ending("error_max_budget_usd", "budget_exhausted", f"Reached maximum budget (${amount})")


@dataclass
class RunSummary:
    """What the result object reports."""

    session_id: str
    reason: EndReason | None = None
    error: str | None = None
    last_text: str = ""
    num_turns: int = 0
    duration_ms: int = 0
    usage: dict[str, int] = field(default_factory=dict)
    total_cost_usd: float | None = 0.0  # None: unknown (a model without prices)
    stop_reason: str | None = None  # the model's, of its last message (end_turn, tool_use...)
    duration_api_ms: int = 0  # time spent waiting on model requests
    permission_denials: list[dict[str, Any]] = field(default_factory=list)
    ending: Ending | None = None  # a front end's own (over the budget)
    # The `uuid`s of the program's user messages the turn took in (SDK: several when
    # queued ones were folded into it); None: not reported.
    user_message_uuids: list[str] | None = None
    structured_output: Any = None  # --json-schema: the last StructuredOutput call that matched

    @classmethod
    def of_turn(cls, session_id: str, tally: TurnTally) -> RunSummary:
        """What the result reports of a turn the driver ran (frontends/driver/tally.py);
        a front end then puts its own over it (the session's totals, its own ending)."""
        return cls(
            session_id=session_id,
            reason=tally.reason,
            error=tally.error,
            last_text=tally.last_text,
            num_turns=tally.turns,
            duration_ms=tally.duration_ms,
            usage=tally.usage.to_dict(),
            total_cost_usd=tally.cost_usd,
            stop_reason=tally.stop_reason,
            duration_api_ms=tally.duration_api_ms,
            permission_denials=list(tally.permission_denials),
            structured_output=tally.structured_output,
        )

    @classmethod
    def of_command(
        cls, session_id: str, said: str, failed: str | None, usage: Usage, cost: float | None
    ) -> RunSummary:
        """What the result reports of a built-in command run instead of a turn (`-p
        "/cost"`, an SDK prompt "/compact"): its words are the result, its error the
        run's; the session's totals so far."""
        summary = cls(session_id=session_id, reason=EndReason.COMPLETED, last_text=said)
        if failed is not None:
            summary.ending = Ending("error_during_execution", None, failed)
        summary.total_cost_usd = cost
        summary.usage = usage.to_dict()
        return summary

    @property
    def subtype(self) -> str:
        if self.ending is not None:
            return self.ending.subtype
        if self.reason is EndReason.COMPLETED:
            return "success"
        if self.reason is EndReason.MAX_TURNS:
            return "error_max_turns"
        return "error_during_execution"

    @property
    def is_error(self) -> bool:
        return self.reason is not EndReason.COMPLETED or self.ending is not None

    @property
    def error_text(self) -> str | None:
        """What went wrong, in words, for an error result (None: nothing said)."""
        if self.ending is not None:
            return self.ending.message
        return self.error if self.is_error else None

    def result_object(self) -> dict[str, Any]:
        error = self.error_text
        result: dict[str, Any] = {
            "type": "result",
            "subtype": self.subtype,
            "is_error": self.is_error,
            "result": error or self.last_text,
            "num_turns": self.num_turns,
            "session_id": self.session_id,
            "duration_ms": self.duration_ms,
            "duration_api_ms": self.duration_api_ms,
            "usage": self.usage,
            "total_cost_usd": None
            if self.total_cost_usd is None
            else round(self.total_cost_usd, 6),
            "stop_reason": self.stop_reason,
            "permission_denials": self.permission_denials,
            "uuid": str(uuid.uuid4()),
        }
        if error:  # Claude Code's `errors`, which the SDK's ResultError carries
            result["errors"] = [error]
        if self.ending is not None:
            if self.ending.terminal_reason is not None:
                result["terminal_reason"] = self.ending.terminal_reason
        elif self.reason is not None:
            result["terminal_reason"] = self.reason.value
        if self.user_message_uuids is not None:
            result["user_message_uuids"] = self.user_message_uuids
            uuids = self.user_message_uuids
            result["user_message_uuid"] = uuids[-1] if uuids else None
        if self.structured_output is not None:
            result["structured_output"] = self.structured_output
        return result


# What json.dumps(ensure_ascii=False) leaves raw that a terminal may obey.
_JSON_UNESCAPED_CONTROLS = re.compile(r"[\x7f-\x9f]")


def json_line(obj: dict[str, Any]) -> str:
    """One JSON object as a line: text that encodes as UTF-8 (core/wellformed.py), with no
    control character left raw."""
    encoded = json_text(obj)
    return _JSON_UNESCAPED_CONTROLS.sub(lambda m: f"\\u{ord(m.group()):04x}", encoded) + "\n"


def for_stream(text: str, stream: TextIO | Stdout) -> str:
    """`text` as it may be written to `stream`: cleaned if a terminal shows it."""
    if not _is_terminal(stream):
        return text
    from agentcli.core.terminal_text import terminal_plain  # only when a terminal is there

    return terminal_plain(text)


def _is_terminal(stream: TextIO | Stdout) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # no isatty, or closed
        return False


def report(message: str) -> None:
    """One line for the person on stderr: `agentcli: message` (dropped when stderr is
    closed or its reader gone: frontends/output_streams.py)."""
    if sys.stderr is not None:
        say("agentcli: " + for_stream(message, sys.stderr))


class Output:
    """Writes one run's events in the chosen format. `out` is stdout unless given; once
    its reader is gone nothing more is written (`out.gone`; frontends/output_streams.py)."""

    def __init__(
        self,
        fmt: str,
        session_id: str,
        out: Stdout | TextIO | None = None,
        verbose: bool = False,
        *,
        partial: bool = False,
    ) -> None:
        self.fmt = fmt
        self.session_id = session_id
        self.out = out if isinstance(out, Stdout) else Stdout(out)
        self.verbose = verbose
        self.partial = partial  # stream-json: `stream_event` lines for text as it streams

    def init(
        self,
        model: str,
        tools: list[str],
        cwd: str,
        permission_mode: str,
        mcp_servers: list[tuple[str, str]] | None = None,
        slash_commands: list[str] | None = None,
        agents: list[str] | None = None,
        plugins: list[tuple[str, str]] | None = None,
    ) -> None:
        """`mcp_servers`: each configured MCP server's name and state; `agents`: the
        subagents the Task tool can start (none: no Task tool); `plugins`: each loaded
        plugin's name and folder. The version is
        agentcli's own, under Claude Code's key (`claude_code_version`), which SDKs read."""
        if self.fmt == "stream-json":
            self._line(
                {
                    "type": "system",
                    "subtype": "init",
                    "session_id": self.session_id,
                    "uuid": str(uuid.uuid4()),
                    "model": model,
                    "tools": tools,
                    "mcp_servers": [
                        {"name": name, "status": status} for name, status in mcp_servers or []
                    ],
                    "cwd": cwd,
                    "permissionMode": permission_mode,
                    "slash_commands": slash_commands or [],
                    "agents": agents or [],
                    "plugins": [{"name": name, "path": path} for name, path in plugins or []],
                    "claude_code_version": __version__,
                }
            )

    def event(self, event: Event) -> None:
        """Write what this format shows of one event (the driver keeps the tally)."""
        match event:
            case AssistantMessage() as assistant:
                self._message("assistant", api_message(assistant), None)
            case UserMessage(message=message):
                self._message("user", message, None)
            case SubagentEvent(parent_tool_use_id=parent, event=AssistantMessage() as assistant):
                self._message("assistant", api_message(assistant), parent)
            case SubagentEvent(parent_tool_use_id=parent, event=UserMessage(message=message)):
                self._message("user", message, parent)
            case TextDelta(text=delta, index=index) if self.partial:
                self._stream_event(index, {"type": "text_delta", "text": delta})
            case ThinkingDelta(text=delta, index=index) if self.partial:
                self._stream_event(index, {"type": "thinking_delta", "thinking": delta})
            case ApiRetry() as retry:
                if self.fmt == "stream-json":
                    self._line(self._retry_line(retry))
                else:  # at once, verbose or not: waiting on the API must never look like a hang
                    report(retry.describe())
            case Compacted(report=compaction) if compaction and self.fmt == "stream-json":
                self._line(self._compact_line(compaction))
            case Notice(text=text, level=level):
                if level != "info" or self.verbose:
                    report(text)
            case TextDelta() | ThinkingDelta() | SubagentEvent():
                pass  # streamed with --include-partial-messages; a subagent's other events
            case (
                RequestStarted()
                | ToolCallStarted()
                | ToolPermissionRequested()
                | ToolCallRunning()
                | ToolCallProgress()
                | ToolCallFinished()
                | TurnEnded()
            ):
                pass  # in the result line (the driver's tally); a question is the driver's
            case _:
                assert_never(event)

    def user_replay(self, message: dict[str, Any], prompt_id: str) -> None:
        """A user message the client sent, echoed with its id (`--replay-user-messages`):
        the `uuid` an SDK program passes back to `rewind_files`."""
        if self.fmt == "stream-json":
            line = self._message_line("user", message)
            self._line({**line, "uuid": prompt_id, "isReplay": True})

    def _message_line(
        self, kind: str, message: Mapping[str, Any], parent: str | None = None
    ) -> dict[str, Any]:
        """An `assistant` or `user` line: the message in API shape, with an id of its own,
        and `parent_tool_use_id`: the Task call whose subagent said it (None: the main
        conversation's)."""
        return {
            "type": kind,
            "message": message,
            "parent_tool_use_id": parent,
            "session_id": self.session_id,
            "uuid": str(uuid.uuid4()),
        }

    def _stream_event(self, index: int, delta: dict[str, Any]) -> None:
        """A `stream_event` line: the streamed piece as the API's `content_block_delta`."""
        if self.fmt == "stream-json":
            event = {"type": "content_block_delta", "index": index, "delta": delta}
            self._line(
                {
                    "type": "stream_event",
                    "event": event,
                    "parent_tool_use_id": None,
                    "session_id": self.session_id,
                    "uuid": str(uuid.uuid4()),
                }
            )

    def finish(self, summary: RunSummary) -> None:
        if self.fmt == "text":
            # The answer goes to stdout only when there is one; failures go to stderr.
            if summary.last_text and not summary.is_error:
                self.out.write(for_stream(summary.last_text, self.out).rstrip("\n") + "\n")
        else:
            self._line(summary.result_object())
        if summary.is_error and not self.out.gone:  # a reader that left needs no reason
            report(f"error: {describe_failure(summary)}")

    def _message(self, role: str, message: Mapping[str, Any], parent: str | None) -> None:
        if self.fmt == "stream-json":
            self._line(self._message_line(role, message, parent))

    def _retry_line(self, retry: ApiRetry) -> dict[str, Any]:
        """Claude Code's `system/api_retry` message, plus the cause in words."""
        return {
            "type": "system",
            "subtype": "api_retry",
            "attempt": retry.attempt,
            "max_retries": retry.max_retries,
            "retry_delay_ms": round(retry.delay_s * 1000),
            "error_status": retry.status,
            "error": retry_category(retry.status),
            "error_message": retry.error,
            "session_id": self.session_id,
        }

    def _compact_line(self, compaction: CompactionReport) -> dict[str, Any]:
        """Claude Code's `system/compact_boundary` message (`compact_metadata`: trigger,
        pre_tokens), with what was kept and summarised besides, and the report's words."""
        return {
            "type": "system",
            "subtype": "compact_boundary",
            "compact_metadata": compaction.to_dict(),
            "content": compaction.describe(),
            "session_id": self.session_id,
            "uuid": str(uuid.uuid4()),
        }

    def _line(self, obj: dict[str, Any]) -> None:
        self.out.write(json_line(obj))


def api_message(event: AssistantMessage) -> dict[str, Any]:
    """The assistant message as the Messages API returned it: its content with the
    response's id, model, stop reason and usage."""
    return {
        "id": event.message_id or f"msg_{uuid.uuid4().hex}",
        "type": "message",
        "role": "assistant",
        "model": event.model,
        "content": event.message.get("content", []),
        "stop_reason": event.stop_reason,
        "usage": event.usage.to_dict(),
    }


def retry_category(status: int | None) -> str:
    """Claude Code's `error` value for a retried request (`SDKAssistantMessageError`)."""
    if status == 429:
        return "rate_limit"
    if status == 529:
        return "overloaded"
    if status is not None and status >= 500:
        return "server_error"
    return "unknown"  # no HTTP answer (connection, timeout), or a 408 / 409


def describe_failure(summary: RunSummary) -> str:
    if summary.ending is not None:
        return summary.ending.message
    reason = summary.reason
    if reason is EndReason.MAX_TURNS:
        return summary.error or "reached the turn limit"
    if reason in (EndReason.ABORTED_STREAMING, EndReason.ABORTED_TOOLS):
        return "interrupted"
    return summary.error or (reason.value if reason else "the run did not finish")
