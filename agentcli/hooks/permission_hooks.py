"""PermissionRequest: hooks that may answer a permission question before anyone sees it.

The tool runner (engine/orchestration.py) calls `answer_by_hook` in its one
place where a question is put to the person, after the gate has built it and
before the Notification hook and the `ToolPermissionRequested` event: so the
hooks hear of every question, whichever front end (TUI, `-p`, SDK, ACP) would
have answered it, a subagent's included. As in Claude Code, a hook's
`hookSpecificOutput.decision` answers it:

- `{"behavior": "allow"}` (optionally `updatedInput`, validated like the
  model's own input): the call runs, nobody is asked; it is an answer of "yes,
  once", so approving ExitPlanMode leaves plan mode as a person's yes does;
- `{"behavior": "deny", "message": ...}` or exit 2 (stderr the message): the
  call is refused with it; `"interrupt": true` stops the whole turn too;
- anything else (no decision, a failed hook): the person is asked as usual.

Deny beats allow between hooks. A hook's allow never passes a question asked
because protection is uncertain (a settings file's deny or ask rules could
not be read): nothing may run then without the person's yes. The hook is
told the rules a "don't ask again" answer would add (`permission_suggestions`);
agentcli does not take `updatedPermissions` back (the person's answers are
the only way rules are added).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from agentcli.hooks.events import Hooks
from agentcli.permissions.gate import GateResult, PermissionGate
from agentcli.permissions.policy import LOCKED
from agentcli.permissions.question import PermissionQuestion

if TYPE_CHECKING:
    pass

Notify = Callable[[str], None]


async def answer_by_hook(
    hooks: Hooks, gate: PermissionGate, question: PermissionQuestion, notify: Notify
) -> GateResult | None:
    """The hooks' answer to `question` as the gate's verdict; None: ask the person."""
    request = question.request
    if not hooks.has_tool_hook("PermissionRequest", request.tool_name):
        return None
    outcome = await hooks.permission_request(
        request.tool_name, request.input, suggestions(question)
    )
    for notice in outcome.notices:
        notify(notice)
    if outcome.stop is not None and hooks.pending_stop is None:
        hooks.pending_stop = outcome.stop
    name = request.tool_name
    if outcome.block is not None:
        return GateResult(False, f"Denied by a PermissionRequest hook: {outcome.block}")
    answer = outcome.answer
    if answer is None:
        return None
    if answer.behavior == "deny":
        why = answer.message or "no reason given"
        return GateResult(
            False, f"Permission to use {name} was denied by a hook: {why}", answer.interrupt
        )
    if request.reason.startswith(LOCKED):
        notify(f"A PermissionRequest hook allowed {name}, but {request.reason}: asking you")
        return None
    from agentcli.permissions.question_models import PermissionAnswer

    yes = PermissionAnswer(allow=True, scope="once", updated_input=answer.updated_input)
    return gate.apply(question, yes)


def suggestions(question: PermissionQuestion) -> list[dict[str, Any]]:
    """The rules a "don't ask again" answer would add, in Claude Code's shape."""
    rules = [
        {"toolName": rule.tool, **({"ruleContent": rule.specifier} if rule.specifier else {})}
        for rule in question.rules
    ]
    if not rules:
        return []
    scopes = {option.scope for option in question.request.options}
    where = {"session": "session", "always": "localSettings"}
    return [
        {"type": "addRules", "rules": rules, "behavior": "allow", "destination": where[scope]}
        for scope in ("session", "always")
        if scope in scopes
    ]
