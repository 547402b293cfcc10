"""The pure translations: todo lists to plans, client answers to permission answers."""

from __future__ import annotations

import pytest
from acp.schema import AgentPlanUpdate, RequestPermissionRequest
from pydantic import ValidationError

from agentcli.frontends.acp.permission import answer_of, permission_params
from agentcli.frontends.acp.updates import plan_update
from agentcli.permissions.question_models import PermissionOption, PermissionRequest


def test_a_todo_list_is_a_plan_the_library_accepts():
    todos = [
        {"content": "a", "status": "pending", "activeForm": "doing a"},
        {"content": "b", "status": "done?", "activeForm": "doing b"},
    ]
    plan = AgentPlanUpdate.model_validate(plan_update({"todos": todos}))
    assert [(e.content, e.status) for e in plan.entries] == [("a", "pending"), ("b", "pending")]


@pytest.mark.parametrize("inp", [{}, {"todos": "x"}, {"todos": [{"status": "pending"}]}])
def test_a_malformed_todo_list_makes_no_plan(inp):
    assert plan_update(inp) is None


def request(*scopes: str) -> PermissionRequest:
    return PermissionRequest(
        tool_name="Bash",
        tool_use_id="toolu_1",
        input={"command": "make"},
        title="Bash command",
        summary="make",
        reason="asks",
        options=tuple(PermissionOption(scope=s, label=s) for s in scopes),  # type: ignore[arg-type]
        rules=("Bash(make:*)",) if "session" in scopes else (),
    )


def test_the_question_is_a_request_the_library_accepts():
    params = permission_params("s1", request("once", "session", "always"))
    parsed = RequestPermissionRequest.model_validate(params)
    assert [(o.option_id, o.kind) for o in parsed.options] == [
        ("allow_once", "allow_once"),
        ("allow_session", "allow_always"),
        ("allow_always", "allow_always"),
        ("reject_once", "reject_once"),
        ("reject_always", "reject_always"),  # the question has rules to refuse by
    ]
    assert parsed.tool_call.title == "Bash command: make"


@pytest.mark.parametrize(
    ("outcome", "allow", "scope", "interrupt"),
    [
        ({"outcome": "selected", "optionId": "allow_once"}, True, "once", False),
        ({"outcome": "selected", "optionId": "allow_session"}, True, "session", False),
        ({"outcome": "selected", "optionId": "allow_always"}, True, "always", False),
        ({"outcome": "selected", "optionId": "reject_once"}, False, "once", False),
        ({"outcome": "selected", "optionId": "reject_always"}, False, "session", False),
        ({"outcome": "selected", "optionId": "something else"}, False, "once", False),
        ({"outcome": "cancelled"}, False, "once", True),
    ],
)
def test_the_clients_answer(outcome, allow, scope, interrupt):
    answer = answer_of({"outcome": outcome})
    assert (answer.allow, answer.scope, answer.interrupt) == (allow, scope, interrupt)


def test_an_answer_that_is_not_one_is_refused_as_unreadable():
    with pytest.raises(ValidationError):
        answer_of({"outcome": {"outcome": "maybe"}})
