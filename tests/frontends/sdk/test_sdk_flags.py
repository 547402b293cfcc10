"""The SDK's options reach agentcli as flags, and each one does what it says."""

from __future__ import annotations

import uuid
from typing import Any

from claude_agent_sdk import ClaudeSDKClient, StreamEvent, SystemMessage, query

from tests.fakeapi import reply, text, tool_use
from tests.frontends.sdk.support import result_of, sdk_options, until_result


def system_text(body: dict[str, Any]) -> str:
    system = body.get("system") or []
    return "\n".join(block["text"] for block in system)


async def test_system_prompt_tools_partial_messages_and_session_id(fake_api, project):
    fake_api.enqueue(reply(text("Terse answer.")))
    session_id = str(uuid.uuid4())
    options = sdk_options(
        fake_api,
        project,
        system_prompt="You are terse.",
        tools=["Read", "Grep"],
        include_partial_messages=True,
        session_id=session_id,
    )

    messages = [m async for m in query(prompt="hi", options=options)]

    body = fake_api.requests[0].body
    assert system_text(body) == "You are terse."
    assert sorted(tool["name"] for tool in body["tools"]) == ["Grep", "Read"]
    streamed = [m.event for m in messages if isinstance(m, StreamEvent)]
    assert "".join(e["delta"]["text"] for e in streamed) == "Terse answer."
    assert result_of(messages).session_id == session_id


async def test_append_system_prompt_keeps_agentcli_prompt(fake_api, project):
    fake_api.enqueue(reply(text("Bonjour.")))
    preset = {"type": "preset", "preset": "claude_code", "append": "Always answer in French."}
    options = sdk_options(fake_api, project, system_prompt=preset)

    [m async for m in query(prompt="hi", options=options)]

    system = system_text(fake_api.requests[0].body)
    assert system.endswith("Always answer in French.") and len(system) > 200


async def test_max_budget_usd_stops_the_session(fake_api, project):
    fake_api.enqueue(reply(text("That cost something.")))
    options = sdk_options(fake_api, project, max_budget_usd=0.000001)

    async with ClaudeSDKClient(options) as client:
        await client.query("spend")
        first = result_of(await until_result(client.receive_response()))
        await client.query("spend more")
        second = result_of(await until_result(client.receive_response()))

    assert first.subtype == "error_max_budget_usd" and first.is_error
    assert second.subtype == "error_max_budget_usd" and second.num_turns == 0
    assert len(fake_api.requests) == 1  # the second turn never called the model


async def test_set_model_and_mcp_status(fake_api, project):
    fake_api.enqueue(reply(text("One.")))
    fake_api.enqueue(reply(text("Two.")))

    async with ClaudeSDKClient(sdk_options(fake_api, project, model="claude-first")) as client:
        await client.query("one")
        await until_result(client.receive_response())
        await client.set_model("claude-second")
        assert await client.get_mcp_status() == {"mcpServers": []}
        await client.query("two")
        turn = await until_result(client.receive_response())

    assert [r.body["model"] for r in fake_api.requests] == ["claude-first", "claude-second"]
    init = [m for m in turn if isinstance(m, SystemMessage) and m.subtype == "init"]
    assert init[0].data["model"] == "claude-second"


async def test_resume_with_fork_session_goes_on_in_a_new_session(fake_api, project):
    fake_api.enqueue(reply(text("Remembered: 42.")))
    fake_api.enqueue(reply(text("It was 42.")))
    first = [m async for m in query(prompt="remember 42", options=sdk_options(fake_api, project))]
    original = result_of(first).session_id

    options = sdk_options(fake_api, project, resume=original, fork_session=True)
    second = [m async for m in query(prompt="what was it?", options=options)]

    forked = result_of(second).session_id
    assert forked != original and result_of(second).result == "It was 42."
    sent = fake_api.requests[1].body["messages"]
    assert sent[0]["content"][0]["text"] == "remember 42" and len(sent) == 3


async def test_settings_and_setting_sources(fake_api, project):
    rules = project / ".agentcli"
    rules.mkdir()
    (rules / "settings.json").write_text('{"permissions": {"allow": ["Write"]}}')
    by_project, by_flag = project / "by_project.txt", project / "by_flag.txt"
    for target in (by_project, by_flag):
        fake_api.enqueue(reply(tool_use("Write", {"file_path": str(target), "content": "x\n"})))
        fake_api.enqueue(reply(text("Done.")))

    without_project = sdk_options(fake_api, project, setting_sources=["user"])
    [m async for m in query(prompt="write", options=without_project)]
    assert not by_project.exists()  # the project's allow rule was not read

    flag_settings = '{"permissions": {"allow": ["Write"]}}'
    options = sdk_options(fake_api, project, setting_sources=["user"], settings=flag_settings)
    [m async for m in query(prompt="write", options=options)]
    assert by_flag.read_text() == "x\n"  # allowed by --settings


async def test_json_schema_gives_structured_output(fake_api, project):
    schema = {
        "type": "object",
        "properties": {"answer": {"type": "integer"}},
        "required": ["answer"],
    }
    fake_api.enqueue(reply(tool_use("StructuredOutput", {"answer": "forty-two"})))
    fake_api.enqueue(reply(tool_use("StructuredOutput", {"answer": 42})))
    fake_api.enqueue(reply(text("The answer is 42.")))
    options = sdk_options(
        fake_api, project, output_format={"type": "json_schema", "schema": schema}
    )

    messages = [m async for m in query(prompt="what is the answer?", options=options)]

    assert result_of(messages).structured_output == {"answer": 42}
    [offered] = [t for t in fake_api.requests[0].body["tools"] if t["name"] == "StructuredOutput"]
    assert offered["input_schema"]["properties"] == schema["properties"]
    wrong = fake_api.requests[1].body["messages"][-1]["content"][0]
    assert wrong["is_error"] and "forty-two" in str(wrong["content"])
