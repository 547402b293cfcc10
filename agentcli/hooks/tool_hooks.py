"""PreToolUse / PostToolUse / PostToolUseFailure around one tool call, for
engine/orchestration.py.

PreToolUse may refuse the call (exit 2 or `permissionDecision: "deny"`),
allow it without a question or force a question (`"allow"` / `"ask"`), or
replace its input (`updatedInput`, validated like the model's own input).
A deny rule in settings still wins over a hook's "allow".
After the tool ran, PostToolUse hears of a call that succeeded and
PostToolUseFailure of one that failed (an error result, a tool that raised,
a Bash command that exited non-zero); their exit 2 message and their
`additionalContext` (PreToolUse's too) are added to the result the model
sees. A call interrupted while it ran fires PostToolUseFailure with
`is_interrupt: true` in the background: the turn is ending, nothing waits.
`continue: false` from any of them stops the agent after this turn.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from agentcli.config.hook_events import HookEvent
from agentcli.hooks.events import HookOutcome, Hooks
from agentcli.permissions.types import Decision
from agentcli.tools.base import Tool, ToolResult

Notify = Callable[[str], None]


@dataclass(frozen=True, slots=True)
class BeforeTool:
    inp: Any
    refusal: str | None = None  # the message for the model when the call is refused
    forced: str | None = None  # "allow" | "ask" from the hook's permissionDecision
    context: tuple[str, ...] = ()  # additionalContext, added to the call's result


async def before_tool(
    hooks: Hooks, tool: Tool, inp: Any, tool_use_id: str, notify: Notify
) -> BeforeTool:
    if not hooks.has_tool_hook("PreToolUse", tool.name):
        return BeforeTool(inp)
    outcome = await hooks.pre_tool_use(tool.name, _dump(inp), tool_use_id)
    _report(hooks, outcome, notify)
    if outcome.block is not None:
        return BeforeTool(inp, f"Blocked by a PreToolUse hook: {outcome.block}")
    if outcome.permission == "deny":
        reason = outcome.permission_reason or "no reason given"
        return BeforeTool(inp, f"Denied by a PreToolUse hook: {reason}")
    if outcome.updated_input is not None:
        from pydantic import ValidationError  # the input model is pydantic's: loaded by now

        try:
            inp = tool.input_model.model_validate(outcome.updated_input)
        except ValidationError as exc:
            return BeforeTool(inp, f"A PreToolUse hook gave {tool.name} an invalid input: {exc}")
    return BeforeTool(inp, None, outcome.permission, tuple(outcome.context))


def combine_decision(gate: Decision, forced: str | None) -> Decision:
    """A hook's allow/ask over the rules' decision; a deny rule is never overridden."""
    if forced is None or gate.behavior == "deny":
        return gate
    if forced == "allow":
        return Decision("allow", "allowed by a PreToolUse hook")
    return Decision("ask", "a PreToolUse hook asks")


async def after_tool(
    hooks: Hooks,
    tool: Tool,
    inp: Any,
    tool_use_id: str,
    result: ToolResult,
    notify: Notify,
    *,
    duration_ms: int = 0,
    context: tuple[str, ...] = (),
) -> ToolResult:
    """PostToolUse for a result that is not an error, PostToolUseFailure for one that
    is; what they (and PreToolUse, `context`) have to tell the model joins the result."""
    event = "PostToolUseFailure" if result.is_error else "PostToolUse"
    if not hooks.has_tool_hook(event, tool.name):
        return _with_notes(result, [f"PreToolUse hook context: {c}" for c in context])
    text = _text(result)
    if result.is_error:
        fields = failure_fields(tool.name, _dump(inp), tool_use_id, text, False, duration_ms)
        outcome = await hooks.fire(HookEvent.POST_TOOL_USE_FAILURE, fields, tool.name)
    else:
        outcome = await hooks.post_tool_use(tool.name, _dump(inp), tool_use_id, text, duration_ms)
    _report(hooks, outcome, notify)
    notes = [f"PreToolUse hook context: {c}" for c in context]
    if outcome.block is not None:
        notes.append(f"{event} hook feedback: {outcome.block}")
    notes += [f"{event} hook context: {c}" for c in outcome.context]
    return _with_notes(result, notes)


def interrupted(hooks: Hooks, tool: Tool, inp: Any, tool_use_id: str, duration_ms: int) -> None:
    """A call stopped while it ran: PostToolUseFailure with `is_interrupt`, unawaited."""
    fields = failure_fields(
        tool.name, _dump(inp), tool_use_id, "interrupted by the user", True, duration_ms
    )
    hooks.fire_in_background(HookEvent.POST_TOOL_USE_FAILURE, fields, tool.name)


def failure_fields(
    tool_name: str,
    tool_input: Any,
    tool_use_id: str,
    error: str,
    is_interrupt: bool,
    duration_ms: int,
) -> dict[str, Any]:
    """PostToolUseFailure's own fields, as Claude Code sends them."""
    return {
        "tool_name": tool_name,
        "tool_input": tool_input,
        "tool_use_id": tool_use_id,
        "error": error,
        "is_interrupt": is_interrupt,
        "duration_ms": duration_ms,
    }


def _with_notes(result: ToolResult, notes: list[str]) -> ToolResult:
    if not notes:
        return result
    note = "\n\n".join(notes)
    if isinstance(result.content, str):
        content: Any = f"{result.content}\n\n{note}" if result.content else note
    else:
        content = [*result.content, {"type": "text", "text": note}]
    return ToolResult(content, result.is_error, result.display)


def _text(result: ToolResult) -> str:
    if isinstance(result.content, str):
        return result.content
    texts = [str(part.get("text", "")) for part in result.content if part.get("type") == "text"]
    return "\n".join(texts) if texts else "(non-text content)"


def _report(hooks: Hooks, outcome: HookOutcome, notify: Notify) -> None:
    for notice in outcome.notices:
        notify(notice)
    if outcome.stop is not None and hooks.pending_stop is None:
        hooks.pending_stop = outcome.stop


def _dump(inp: Any) -> Any:
    dump = getattr(inp, "model_dump", None)
    return dump(by_alias=True, exclude_none=True) if dump else inp
