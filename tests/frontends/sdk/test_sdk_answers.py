"""What a `can_use_tool` answer can carry besides yes and no: a changed input, permission
updates for the rest of the session, and an interrupt; and `dontAsk` mode, which asks
nobody."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from claude_agent_sdk import (
    ClaudeSDKClient,
    PermissionResultAllow,
    PermissionResultDeny,
    PermissionUpdate,
    ToolPermissionContext,
)
from claude_agent_sdk.types import PermissionRuleValue

from tests.fakeapi import reply, text, tool_use
from tests.frontends.sdk.support import result_of, sdk_options, tool_results, until_result


def write(path: Path, content: str) -> dict[str, Any]:
    return {"file_path": str(path), "content": content}


async def run_turn(options: Any, prompt: str) -> list[Any]:
    async with ClaudeSDKClient(options) as client:
        await client.query(prompt)
        return await until_result(client.receive_response())


async def test_updated_input_and_updated_permissions(fake_api, project):
    first, second = project / "first.txt", project / "second.txt"
    fake_api.enqueue(reply(tool_use("Write", write(first, "from the model\n"))))
    fake_api.enqueue(reply(tool_use("Write", write(second, "no question\n"))))
    fake_api.enqueue(reply(text("Both written.")))
    asked: list[str] = []

    async def can_use_tool(
        name: str, tool_input: dict[str, Any], context: ToolPermissionContext
    ) -> PermissionResultAllow:
        asked.append(tool_input["file_path"])
        assert context.suggestions  # what an "always" answer would add
        rule = PermissionRuleValue(tool_name="Write")
        always = PermissionUpdate(
            type="addRules", rules=[rule], behavior="allow", destination="session"
        )
        return PermissionResultAllow(
            updated_input={**tool_input, "content": "from the program\n"},
            updated_permissions=[always],
        )

    messages = await run_turn(sdk_options(fake_api, project, can_use_tool=can_use_tool), "go")

    assert first.read_text() == "from the program\n"  # updatedInput
    assert second.read_text() == "no question\n" and asked == [str(first)]  # the session rule
    assert result_of(messages).result == "Both written."


async def test_a_deny_with_interrupt_stops_the_turn(fake_api, project):
    target = project / "never.txt"
    fake_api.enqueue(reply(tool_use("Write", write(target, "x\n"))))

    async def can_use_tool(
        name: str, tool_input: dict[str, Any], context: ToolPermissionContext
    ) -> PermissionResultDeny:
        return PermissionResultDeny(message="stop everything", interrupt=True)

    messages = await run_turn(sdk_options(fake_api, project, can_use_tool=can_use_tool), "go")

    result = result_of(messages)
    assert not target.exists() and result.is_error
    assert result.terminal_reason == "aborted_tools"
    assert len(fake_api.requests) == 1  # the model was not asked again


async def test_dont_ask_mode_refuses_without_asking(fake_api, project):
    target = project / "refused.txt"
    fake_api.enqueue(reply(tool_use("Write", write(target, "x\n"))))
    fake_api.enqueue(reply(text("Refused.")))
    asked: list[str] = []

    async def can_use_tool(
        name: str, tool_input: dict[str, Any], context: ToolPermissionContext
    ) -> PermissionResultAllow:
        asked.append(name)
        return PermissionResultAllow()

    options = sdk_options(fake_api, project, can_use_tool=can_use_tool, permission_mode="dontAsk")
    messages = await run_turn(options, "go")

    assert not target.exists() and asked == []
    refused = tool_results(fake_api.requests[1].body)[0]
    assert "dontAsk" in str(refused["content"])
    assert [d["tool_name"] for d in result_of(messages).permission_denials] == ["Write"]
