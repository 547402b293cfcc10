"""PreToolUse / PostToolUse around one tool call, for engine/orchestration.py.

PreToolUse may refuse the call (exit 2 or `permissionDecision: "deny"`),
allow it without a question or force a question (`"allow"` / `"ask"`), or
replace its input (`updatedInput`, validated like the model's own input).
A deny rule in settings still wins over a hook's "allow".
PostToolUse runs after the tool; exit 2 adds its message to the result the
model sees. `continue: false` from either stops the agent after this turn.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from agentcli.hooks.events import HookOutcome, Hooks
from agentcli.permissions.types import Decision
from agentcli.tools.base import Tool, ToolResult

Notify = Callable[[str], None]


@dataclass(frozen=True, slots=True)
class BeforeTool:
    inp: Any
    refusal: str | None = None  # the message for the model when the call is refused
    forced: str | None = None  # "allow" | "ask" from the hook's permissionDecision


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
        try:
            inp = tool.input_model.model_validate(outcome.updated_input)
        except ValidationError as exc:
            return BeforeTool(inp, f"A PreToolUse hook gave {tool.name} an invalid input: {exc}")
    return BeforeTool(inp, None, outcome.permission)


def combine_decision(gate: Decision, forced: str | None) -> Decision:
    """A hook's allow/ask over the rules' decision; a deny rule is never overridden."""
    if forced is None or gate.behavior == "deny":
        return gate
    if forced == "allow":
        return Decision("allow", "allowed by a PreToolUse hook")
    return Decision("ask", "a PreToolUse hook asks")


async def after_tool(
    hooks: Hooks, tool: Tool, inp: Any, tool_use_id: str, result: ToolResult, notify: Notify
) -> ToolResult:
    if not hooks.has_tool_hook("PostToolUse", tool.name):
        return result
    response = result.content if isinstance(result.content, str) else "(non-text content)"
    outcome = await hooks.post_tool_use(tool.name, _dump(inp), tool_use_id, response)
    _report(hooks, outcome, notify)
    if outcome.block is None:
        return result
    note = f"PostToolUse hook feedback: {outcome.block}"
    if isinstance(result.content, str):
        content: Any = f"{result.content}\n\n{note}" if result.content else note
    else:
        content = [*result.content, {"type": "text", "text": note}]
    return ToolResult(content, result.is_error, result.display)


def _report(hooks: Hooks, outcome: HookOutcome, notify: Notify) -> None:
    for notice in outcome.notices:
        notify(notice)
    if outcome.stop is not None and hooks.pending_stop is None:
        hooks.pending_stop = outcome.stop


def _dump(inp: Any) -> Any:
    dump = getattr(inp, "model_dump", None)
    return dump(by_alias=True, exclude_none=True) if dump else inp
