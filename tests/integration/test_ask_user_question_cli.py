"""`-p` asks nobody, so it does not offer AskUserQuestion: the real binary against the
fake API, the request's tool list read where the model would read it."""

from __future__ import annotations

from tests.fakeapi import reply, text, tool_use
from tests.integration.test_headless_cli import agentcli


def offered(server) -> list[str]:
    return [tool["name"] for tool in server.requests[0].body["tools"]]


def test_print_mode_does_not_offer_it_and_a_call_to_it_is_refused(fake_api, project):
    question = {
        "question": "Which?",
        "header": "Pick",
        "options": [{"label": "a", "description": "A"}, {"label": "b", "description": "B"}],
    }
    fake_api.enqueue(reply(tool_use("AskUserQuestion", {"questions": [question]})))
    fake_api.enqueue(reply(text("Picked a myself.")))

    done = agentcli(["-p", "choose", "--permission-mode", "bypassPermissions"], project, fake_api)

    assert done.returncode == 0, done.stderr
    assert "AskUserQuestion" not in offered(fake_api)
    assert "ExitPlanMode" in offered(fake_api)  # the rest of the list as before
    result = fake_api.requests[1].body["messages"][-1]["content"][0]
    assert result["is_error"] is True and "AskUserQuestion" in result["content"]
    assert done.stdout == "Picked a myself.\n"


def test_naming_it_in_tools_does_not_bring_it_into_print_mode(fake_api, project):
    fake_api.enqueue(reply(text("ok")))

    done = agentcli(["-p", "hi", "--tools", "AskUserQuestion,Read"], project, fake_api)

    assert done.returncode == 0, done.stderr
    assert offered(fake_api) == ["Read"]
