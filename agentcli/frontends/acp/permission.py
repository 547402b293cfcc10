"""A permission question as ACP's `session/request_permission`, and the answer back.

The gate decides what is asked and what an answer does; this module only
translates. Our "once" answer is ACP's `allow_once`; "session" (this
session) and "always" (saved in the project) are both `allow_always`,
told apart by their ids and names; `reject_once` is the refusal and the
turn goes on; `reject_always`, offered when the question has rules to go by
(the ones "allow always" would add), refuses and makes them deny rules for
the rest of the session. A client that cancels the request (after
`session/cancel`) interrupts the turn, as Esc at the TUI's question does.
"""

from __future__ import annotations

from typing import Any

from agentcli.frontends.acp.schema import PermissionResponse
from agentcli.frontends.acp.updates import diff_content
from agentcli.permissions.question_models import PermissionAnswer, PermissionRequest
from agentcli.permissions.types import Scope
from agentcli.tools.display import DiffDisplay

REJECT = "reject_once"
REJECT_ALWAYS = "reject_always"
_ALLOW_IDS: dict[Scope, str] = {
    "once": "allow_once",
    "session": "allow_session",
    "always": "allow_always",
}
_SCOPES: dict[str, Scope] = {option_id: scope for scope, option_id in _ALLOW_IDS.items()}


def permission_params(session_id: str, request: PermissionRequest) -> dict[str, Any]:
    """The params of `session/request_permission` for this question."""
    options = [
        {
            "optionId": _ALLOW_IDS[option.scope],
            "name": option.label,
            "kind": "allow_once" if option.scope == "once" else "allow_always",
        }
        for option in request.options
    ]
    options.append({"optionId": REJECT, "name": "No", "kind": "reject_once"})
    if request.rules:
        refused = ", ".join(request.rules)
        options.append(
            {
                "optionId": REJECT_ALWAYS,
                "name": f"No, and refuse {refused} for the rest of this session",
                "kind": "reject_always",
            }
        )
    title = request.title + (f": {request.summary}" if request.summary else "")
    if request.asked_by is not None:  # a subagent's call: say which
        title += f" (asked by {request.asked_by.label()})"
    tool_call: dict[str, Any] = {
        "toolCallId": request.tool_use_id,
        "title": title,
        "rawInput": request.input,
    }
    preview = request.preview
    if isinstance(preview, DiffDisplay) and request.path is not None:
        tool_call["content"] = [diff_content(str(request.path), h.lines) for h in preview.hunks]
    return {"sessionId": session_id, "toolCall": tool_call, "options": options}


def answer_of(response: Any) -> PermissionAnswer:
    """The person's answer in the client's response. An unknown option refuses."""
    outcome = PermissionResponse.model_validate(response).outcome
    if outcome.outcome == "cancelled":
        return PermissionAnswer(allow=False, interrupt=True)
    if outcome.option_id == REJECT_ALWAYS:
        return PermissionAnswer(allow=False, scope="session")
    scope = _SCOPES.get(outcome.option_id or "")
    if scope is None:
        return PermissionAnswer(allow=False)
    return PermissionAnswer(allow=True, scope=scope)
