"""A permission question put to the SDK client, and what its answer does.

With `--permission-prompt-tool stdio` (the SDK sets it when the program gives
a `can_use_tool` callback) each question the engine asks goes to the client
as a `can_use_tool` request: the tool, its input, its id, and the rules an
"always" answer would add as `permission_suggestions`; a subagent's call also
carries its `agent_id`, and its `title` says which subagent asks. The reply allows (with
`updatedInput` and `updatedPermissions` honoured) or denies (with a message
for the model, and `interrupt` to stop the turn). Without a client to ask, or
in `dontAsk` mode, the question is refused at once, as `-p` does.
"""

from __future__ import annotations

from typing import Any

from agentcli.config.rules import Rule, RuleSyntaxError
from agentcli.frontends.sdk.channel import ControlChannel, ControlError
from agentcli.permissions.gate import PermissionGate, headless_answer
from agentcli.permissions.question import PermissionQuestion
from agentcli.permissions.question_models import PermissionAnswer, PermissionRequest
from agentcli.permissions.types import PermissionMode

DONT_ASK = "dontAsk"


def refusal(request: PermissionRequest, dont_ask: bool) -> PermissionAnswer:
    """The answer when nobody is asked: `dontAsk` mode, or no `can_use_tool` callback."""
    if not dont_ask:
        return headless_answer(request)
    return PermissionAnswer(
        allow=False,
        feedback=(
            f"{request.tool_name} was not run: the session is in dontAsk mode, which refuses "
            f"every call that no allow rule approves ({request.reason})."
        ),
    )


async def ask_client(
    channel: ControlChannel, question: PermissionQuestion, gate: PermissionGate
) -> tuple[PermissionAnswer, list[str]]:
    """The client's answer to `question`, and notes for stderr (updates not applied)."""
    request = question.request
    body: dict[str, Any] = {
        "subtype": "can_use_tool",
        "tool_name": request.tool_name,
        "input": request.input,
        "tool_use_id": request.tool_use_id,
        "permission_suggestions": suggestions(request.rules),
        "decision_reason": request.reason,
        "title": request.title,
        "description": request.summary,
    }
    if request.path is not None:
        body["blocked_path"] = str(request.path)
    if request.asked_by is not None:  # a subagent's call: its id, as Claude Code sends it
        body["agent_id"] = request.asked_by.agent_id
        body["title"] = f"{request.title} (asked by {request.asked_by.label()})"
    try:
        reply = await channel.request(body)
    except ControlError as exc:
        feedback = f"The SDK client could not answer the permission question: {exc}"
        return PermissionAnswer(allow=False, feedback=feedback), []
    return answer_of(reply, request, gate)


def answer_of(
    reply: dict[str, Any], request: PermissionRequest, gate: PermissionGate
) -> tuple[PermissionAnswer, list[str]]:
    """Read a `can_use_tool` response (`behavior` allow / deny)."""
    behavior = reply.get("behavior")
    if behavior == "allow":
        notes = apply_updates(reply.get("updatedPermissions"), gate)
        updated = reply.get("updatedInput")
        changed = updated if isinstance(updated, dict) and updated != request.input else None
        return PermissionAnswer(allow=True, updated_input=changed), notes
    if behavior == "deny":
        message = reply.get("message")
        feedback = message if isinstance(message, str) and message else None
        return PermissionAnswer(
            allow=False, feedback=feedback, interrupt=bool(reply.get("interrupt"))
        ), []
    note = f"a can_use_tool response has no behavior allow or deny ({behavior!r}): refused"
    return PermissionAnswer(allow=False, feedback="The SDK client's answer was not understood."), [
        note
    ]


def suggestions(rules: tuple[str, ...]) -> list[dict[str, Any]]:
    """The rules an "always" answer would add, as the SDK's `addRules` updates."""
    values = []
    for text in rules:
        try:
            rule = Rule.parse(text)
        except RuleSyntaxError:
            continue
        value: dict[str, Any] = {"toolName": rule.tool}
        if rule.specifier is not None:
            value["ruleContent"] = rule.specifier
        values.append(value)
    if not values:
        return []
    return [{"type": "addRules", "rules": values, "behavior": "allow", "destination": "session"}]


def apply_updates(updates: Any, gate: PermissionGate) -> list[str]:
    """`updatedPermissions`: allow rules and a mode for the session; `localSettings`
    rules are saved too. Returns a note for each update that could not apply."""
    if not isinstance(updates, list):
        return []
    notes = []
    for update in updates:
        note = _apply(update, gate) if isinstance(update, dict) else "an update is not an object"
        if note:
            notes.append(f"updatedPermissions: {note}")
    return notes


def _apply(update: dict[str, Any], gate: PermissionGate) -> str | None:
    kind = update.get("type")
    if kind == "setMode":
        mode = update.get("mode")
        if mode not in {m.value for m in PermissionMode}:
            return f"mode {mode!r} is not one agentcli has; the mode stays {gate.policy.mode.value}"
        gate.policy.mode = PermissionMode(mode)
        return None
    if kind == "addRules" and update.get("behavior") == "allow":
        values = update.get("rules") or []
        try:
            if not isinstance(values, list):
                raise RuleSyntaxError("rules is not a list")
            rules = [_rule(value) for value in values]
        except RuleSyntaxError as exc:
            return f"a rule could not be read ({exc}); none was added"
        for rule in rules:
            gate.policy.add_session_rule(rule)
        if update.get("destination") == "localSettings" and rules:
            gate.remember(rules)
        return None
    return f"{kind!r} ({update.get('behavior')}) is not applied by agentcli"


def _rule(value: Any) -> Rule:
    """One rule of an `addRules` update: `{"toolName": ..., "ruleContent"?: ...}`, both
    text; anything else is a RuleSyntaxError."""
    if not isinstance(value, dict):
        raise RuleSyntaxError("a rule is not an object")
    tool, content = value.get("toolName"), value.get("ruleContent")
    if not isinstance(tool, str) or not (content is None or isinstance(content, str)):
        raise RuleSyntaxError("a rule needs a toolName and a ruleContent that are text")
    return Rule.parse(tool if content is None else f"{tool}({content})")
