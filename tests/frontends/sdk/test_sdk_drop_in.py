"""SDK programs run on agentcli unchanged: the real `claude-agent-sdk` drives `agentcli`.

Each test is one of the scenarios of issue 13: a one-shot `query()`; a two-turn
`ClaudeSDKClient` with `interrupt()`; a `can_use_tool` callback that allows one
call and denies another; `permission_mode` and `allowed_tools`; a `PreToolUse`
hook callback that blocks a call; `set_permission_mode` mid-session.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from claude_agent_sdk import (
    AssistantMessage,
    ClaudeSDKClient,
    HookMatcher,
    PermissionResultAllow,
    PermissionResultDeny,
    SystemMessage,
    TextBlock,
    ToolPermissionContext,
    UserMessage,
    query,
)

from agentcli import __version__
from tests.fakeapi import hang, reply, text, tool_use
from tests.frontends.sdk.support import result_of, sdk_options, tool_results, until_result


def write(path: Path, content: str) -> dict[str, Any]:
    return {"file_path": str(path), "content": content}


async def test_one_shot_query(fake_api, project):
    fake_api.enqueue(reply(text("Hello from agentcli.")))

    messages = [m async for m in query(prompt="Say hello", options=sdk_options(fake_api, project))]

    init = messages[0]
    assert isinstance(init, SystemMessage) and init.subtype == "init"
    assert init.data["claude_code_version"] == __version__
    assert "Read" in init.data["tools"] and init.data["cwd"] == str(project.resolve())
    assistant = next(m for m in messages if isinstance(m, AssistantMessage))
    assert assistant.content == [TextBlock(text="Hello from agentcli.")]
    assert assistant.model and assistant.message_id and assistant.usage["output_tokens"] > 0
    assert assistant.parent_tool_use_id is None
    result = result_of(messages)
    assert (result.subtype, result.is_error, result.result) == (
        "success",
        False,
        "Hello from agentcli.",
    )
    assert result.stop_reason == "end_turn" and result.terminal_reason == "completed"
    assert result.num_turns == 1 and result.duration_api_ms >= 0
    assert result.permission_denials == [] and result.session_id == init.data["session_id"]
    assert fake_api.requests[0].body["messages"][0]["content"][0]["text"] == "Say hello"


async def test_two_turns_and_an_interrupt_in_one_conversation(fake_api, project):
    fake_api.enqueue(reply(text("First answer.")))
    stuck = hang(after_events=3)
    fake_api.enqueue(stuck)
    fake_api.enqueue(reply(text("Third answer.")))

    async with ClaudeSDKClient(sdk_options(fake_api, project)) as client:
        await client.query("one")
        first = result_of(await until_result(client.receive_response()))
        await client.query("two")
        await asyncio.to_thread(stuck.reached.wait, 30)
        await client.interrupt()
        second = result_of(await until_result(client.receive_response()))
        await client.query("three")
        third_turn = await until_result(client.receive_response())

    assert first.result == "First answer." and not first.is_error
    assert second.is_error and second.subtype == "error_during_execution"
    assert second.terminal_reason == "aborted_streaming"
    assert result_of(third_turn).result == "Third answer."
    users = [m for m in third_turn if isinstance(m, UserMessage)]
    assert all(m.uuid for m in users)
    sent = fake_api.requests[-1].body["messages"]  # one conversation: every turn is in it
    texts = [b["text"] for m in sent if m["role"] == "user" for b in m["content"] if "text" in b]
    assert texts[0] == "one" and "two" in texts and texts[-1] == "three"
    assert len({first.session_id, second.session_id}) == 1


async def test_can_use_tool_allows_one_call_and_denies_another(fake_api, project):
    allowed, denied = project / "allowed.txt", project / "denied.txt"
    fake_api.enqueue(
        reply(tool_use("Write", write(allowed, "yes\n")), tool_use("Write", write(denied, "no\n")))
    )
    fake_api.enqueue(reply(text("One written, one refused.")))
    asked: list[tuple[str, str | None]] = []

    async def can_use_tool(
        name: str, tool_input: dict[str, Any], context: ToolPermissionContext
    ) -> PermissionResultAllow | PermissionResultDeny:
        asked.append((tool_input["file_path"], context.tool_use_id))
        if tool_input["file_path"] == str(allowed):
            return PermissionResultAllow()
        return PermissionResultDeny(message="not that one")

    options = sdk_options(fake_api, project, can_use_tool=can_use_tool)
    async with ClaudeSDKClient(options) as client:
        await client.query("write two files")
        messages = await until_result(client.receive_response())

    assert allowed.read_text() == "yes\n" and not denied.exists()
    assert [path for path, _ in asked] == [str(allowed), str(denied)]
    assert all(tool_use_id for _, tool_use_id in asked)
    refused = tool_results(fake_api.requests[1].body)[1]
    assert refused["is_error"] and "not that one" in str(refused["content"])
    result = result_of(messages)
    assert [d["tool_input"]["file_path"] for d in result.permission_denials] == [str(denied)]
    assert result.permission_denials[0]["tool_use_id"] == asked[1][1]


async def test_permission_mode_and_allowed_tools(fake_api, project):
    accepted = project / "accepted.txt"
    fake_api.enqueue(reply(tool_use("Write", write(accepted, "edits accepted\n"))))
    fake_api.enqueue(reply(text("Written.")))
    options = sdk_options(fake_api, project, permission_mode="acceptEdits")
    messages = [m async for m in query(prompt="write it", options=options)]
    assert result_of(messages).permission_denials == []
    assert accepted.read_text() == "edits accepted\n"

    notes = project / "notes.txt"
    fake_api.enqueue(reply(tool_use("Write", write(notes, "allowed by a rule\n"))))
    fake_api.enqueue(reply(text("Written.")))
    options = sdk_options(fake_api, project, allowed_tools=["Write"])
    messages = [m async for m in query(prompt="write it", options=options)]
    assert notes.read_text() == "allowed by a rule\n"
    assert result_of(messages).permission_denials == []

    blocked = project / "blocked.txt"
    fake_api.enqueue(reply(tool_use("Write", write(blocked, "never\n"))))
    fake_api.enqueue(reply(text("Refused.")))
    options = sdk_options(fake_api, project)  # default mode, nobody to ask
    messages = [m async for m in query(prompt="write again", options=options)]
    assert not blocked.exists()
    assert [d["tool_name"] for d in result_of(messages).permission_denials] == ["Write"]


async def test_a_pre_tool_use_hook_callback_blocks_a_call(fake_api, project):
    target = project / "hooked.txt"
    fake_api.enqueue(reply(tool_use("Write", write(target, "no\n"))))
    fake_api.enqueue(reply(text("The hook said no.")))
    seen: list[dict[str, Any]] = []

    async def guard(hook_input: Any, tool_use_id: str | None, context: Any) -> dict[str, Any]:
        seen.append({**hook_input, "id": tool_use_id})
        return {
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "deny",
                "permissionDecisionReason": "writes are frozen",
            }
        }

    options = sdk_options(
        fake_api,
        project,
        permission_mode="bypassPermissions",
        hooks={"PreToolUse": [HookMatcher(matcher="Write|Edit", hooks=[guard])]},
    )
    async with ClaudeSDKClient(options) as client:
        await client.query("write it")
        result = result_of(await until_result(client.receive_response()))

    assert not target.exists()
    assert seen[0]["hook_event_name"] == "PreToolUse" and seen[0]["tool_name"] == "Write"
    assert seen[0]["tool_input"]["file_path"] == str(target) and seen[0]["id"]
    refused = tool_results(fake_api.requests[1].body)[0]
    assert refused["is_error"] and "writes are frozen" in str(refused["content"])
    assert result.result == "The hook said no."


async def test_set_permission_mode_mid_session(fake_api, project):
    first, second = project / "first.txt", project / "second.txt"
    fake_api.enqueue(reply(tool_use("Write", write(first, "1\n"))))
    fake_api.enqueue(reply(text("Could not.")))
    fake_api.enqueue(reply(tool_use("Write", write(second, "2\n"))))
    fake_api.enqueue(reply(text("Done.")))

    async with ClaudeSDKClient(sdk_options(fake_api, project)) as client:
        await client.query("write first")
        before = result_of(await until_result(client.receive_response()))
        await client.set_permission_mode("acceptEdits")
        await client.query("write second")
        after = result_of(await until_result(client.receive_response()))

    assert not first.exists() and second.read_text() == "2\n"
    assert [d["tool_name"] for d in before.permission_denials] == ["Write"]
    assert after.permission_denials == []
