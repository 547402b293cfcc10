"""AskUserQuestion through the real Claude Agent SDK client, as Claude Code does it: the
question goes to the program's `can_use_tool`, which answers by allowing with
`updatedInput` that carries `answers` (question text -> label); without a
`can_use_tool` there is nobody to ask and the tool is not offered."""

from __future__ import annotations

from typing import Any

from claude_agent_sdk import (
    ClaudeSDKClient,
    PermissionResultAllow,
    PermissionResultDeny,
    ToolPermissionContext,
)

from tests.fakeapi import reply, text, tool_use
from tests.frontends.sdk.support import result_of, sdk_options, tool_results, until_result
from tests.support.ask_user_questions import QUESTIONS


async def run_turn(options: Any, prompt: str) -> list[Any]:
    async with ClaudeSDKClient(options) as client:
        await client.query(prompt)
        return await until_result(client.receive_response())


def offered(request: Any) -> list[str]:
    return [tool["name"] for tool in request.body["tools"]]


async def test_can_use_tool_answers_with_updated_input_answers(fake_api, project):
    fake_api.enqueue(reply(tool_use("AskUserQuestion", {"questions": QUESTIONS})))
    fake_api.enqueue(reply(text("Going with httpx.")))
    asked: list[tuple[str, dict[str, Any]]] = []

    async def can_use_tool(
        name: str, tool_input: dict[str, Any], context: ToolPermissionContext
    ) -> PermissionResultAllow:
        asked.append((name, tool_input))
        answers = {"Which library?": "httpx", "Which checks?": "lint, tests"}
        return PermissionResultAllow(updated_input={**tool_input, "answers": answers})

    messages = await run_turn(sdk_options(fake_api, project, can_use_tool=can_use_tool), "go")

    assert "AskUserQuestion" in offered(fake_api.requests[0])
    ((name, tool_input),) = asked
    assert name == "AskUserQuestion" and tool_input["questions"][1]["multiSelect"] is True
    (result,) = tool_results(fake_api.requests[1].body)
    assert not result.get("is_error")
    assert result["content"] == (
        'User has answered your questions: "Which library?"="httpx", '
        '"Which checks?"="lint, tests". '
        "You can now continue with the user's answers in mind."
    )
    assert result_of(messages).result == "Going with httpx."


async def test_a_deny_from_the_program_is_a_declined_question(fake_api, project):
    fake_api.enqueue(reply(tool_use("AskUserQuestion", {"questions": QUESTIONS[:1]})))
    fake_api.enqueue(reply(text("I'll pick.")))

    async def can_use_tool(
        name: str, tool_input: dict[str, Any], context: ToolPermissionContext
    ) -> PermissionResultDeny:
        return PermissionResultDeny(message="choose yourself")

    messages = await run_turn(sdk_options(fake_api, project, can_use_tool=can_use_tool), "go")

    (result,) = tool_results(fake_api.requests[1].body)
    assert result["is_error"] is True
    assert "declined to answer" in str(result["content"]) and "choose yourself" in str(
        result["content"]
    )
    assert result_of(messages).result == "I'll pick."


async def test_without_can_use_tool_it_is_not_offered(fake_api, project):
    fake_api.enqueue(reply(text("hello")))

    await run_turn(sdk_options(fake_api, project), "hi")

    assert "AskUserQuestion" not in offered(fake_api.requests[0])
