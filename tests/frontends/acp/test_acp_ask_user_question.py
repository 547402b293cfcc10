"""AskUserQuestion over ACP, driven by the protocol's own client library: each question
becomes a `session/request_permission` whose options are its labels, asked in order;
the picks go back to the model in Claude Code's words."""

from __future__ import annotations

from acp import text_block

from tests.fakeapi import reply, text, tool_use
from tests.frontends.acp.client import EditorClient, agent_in_process
from tests.support.ask_user_questions import QUESTIONS


def asks(server, questions=QUESTIONS) -> None:
    server.enqueue(reply(tool_use("AskUserQuestion", {"questions": questions})))
    server.enqueue(reply(text("Thanks.")))


def the_result(server) -> dict:
    (result,) = [
        block
        for block in server.requests[1].body["messages"][-1]["content"]
        if block["type"] == "tool_result"
    ]
    return result


async def prompt_once(client: EditorClient, project, fake_api) -> str:
    async with agent_in_process(client, project, fake_api) as conn:
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        done = await conn.prompt(session_id=session.session_id, prompt=[text_block("go")])
    return done.stop_reason


async def test_one_request_a_question_with_its_labels_as_options(fake_api, project):
    asks(fake_api)
    client = EditorClient(["answer_2", "answer_3"])

    assert await prompt_once(client, project, fake_api) == "end_turn"

    offered = [tool["name"] for tool in fake_api.requests[0].body["tools"]]
    assert "AskUserQuestion" in offered
    (first_call, first), (second_call, second) = client.questions
    assert first_call.title == "Library: Which library? (1 of 2)"
    assert [(o.name, o.kind) for o in first] == [
        ("httpx", "allow_once"),
        ("requests", "allow_once"),
        ("Decline to answer", "reject_once"),
    ]
    assert "- httpx: async and sync" in first_call.content[0].content.text
    assert second_call.title == "Checks: Which checks? (2 of 2, pick one here)"
    assert [o.name for o in second] == ["lint", "types", "tests", "Decline to answer"]
    assert first_call.tool_call_id == second_call.tool_call_id  # the one call
    assert the_result(fake_api)["content"] == (
        'User has answered your questions: "Which library?"="requests", '
        '"Which checks?"="tests". '
        "You can now continue with the user's answers in mind."
    )


async def test_declining_refuses_the_call_and_asks_no_more(fake_api, project):
    asks(fake_api)
    client = EditorClient(["decline"])

    assert await prompt_once(client, project, fake_api) == "end_turn"

    assert len(client.questions) == 1
    result = the_result(fake_api)
    assert result["is_error"] is True
    assert "declined to answer" in str(result["content"])


async def test_the_client_cancelling_a_question_stops_the_turn(fake_api, project):
    asks(fake_api)
    client = EditorClient(["answer_1", "cancelled"])

    assert await prompt_once(client, project, fake_api) == "cancelled"

    assert len(client.questions) == 2
    assert len(fake_api.requests) == 1  # the model is not asked again
