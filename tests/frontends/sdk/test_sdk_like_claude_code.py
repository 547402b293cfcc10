"""Where an SDK program could tell agentcli from Claude Code, it cannot any more.

A spent `max_budget_usd` raises the SDK's `ResultError` (the CLI exits 1 after the
error result) naming the budget; user messages sent while a turn runs are folded
into one next turn, as Claude Code folds queued prompts.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import AsyncIterator
from typing import Any

import pytest
from claude_agent_sdk import ClaudeSDKClient, ResultError, ResultMessage, SystemMessage, query

from tests.fakeapi import hang, reply, text, tool_use
from tests.frontends.sdk.support import result_of, sdk_options, until_result


async def test_a_spent_budget_raises_the_sdk_error_that_names_it(fake_api, project):
    fake_api.enqueue(reply(text("That cost something.")))
    stderr_lines: list[str] = []
    options = sdk_options(fake_api, project, max_budget_usd=0.000001, stderr_lines=stderr_lines)
    seen: list[object] = []

    with pytest.raises(ResultError) as raised:
        async for message in query(prompt="spend", options=options):
            seen.append(message)

    error = raised.value
    assert error.exit_code == 1 and error.subtype == "error_max_budget_usd"
    assert error.terminal_reason == "budget_exhausted"
    assert error.errors == ["Reached maximum budget ($0.000001)"]
    result = result_of(seen)
    assert result.is_error and result.terminal_reason == "budget_exhausted"
    assert not any("interrupted" in line for line in stderr_lines), stderr_lines


async def test_a_session_whose_last_turn_succeeded_exits_0(fake_api, project):
    fake_api.enqueue(reply(text("Fine.")))

    messages = [m async for m in query(prompt="hi", options=sdk_options(fake_api, project))]

    assert result_of(messages).subtype == "success"  # no ProcessError was raised


async def user_message(words: str, message_id: str) -> AsyncIterator[dict[str, Any]]:
    """One user message with the `uuid` a program gives it."""
    yield {"type": "user", "message": {"role": "user", "content": words}, "uuid": message_id}


async def test_messages_sent_while_a_turn_runs_make_one_next_turn(fake_api, project):
    first = hang(reply(text("First answer.")), after_events=3)
    fake_api.enqueue(first)
    fake_api.enqueue(reply(text("All three at once.")))

    async with ClaudeSDKClient(sdk_options(fake_api, project)) as client:
        await client.query("one")
        await asyncio.to_thread(first.reached.wait, 30)
        ids = [str(uuid.uuid4()) for _ in range(3)]
        for words, message_id in zip(("two", "three", "four"), ids, strict=True):
            await client.query(user_message(words, message_id))
        # Answered after the three lines before it were read: they wait in agentcli's queue.
        await client.get_mcp_status()
        first.release()
        turn_one = result_of(await until_result(client.receive_response()))
        turn_two = await until_result(client.receive_response())

    assert turn_one.result == "First answer."
    folded = result_of(turn_two)
    assert folded.result == "All three at once." and folded.num_turns == 1
    assert len(fake_api.requests) == 2  # one request for the three messages
    last = fake_api.requests[1].body["messages"][-1]
    assert last["role"] == "user"
    assert [block["text"] for block in last["content"]] == ["two\nthree\nfour"]
    assert isinstance(folded, ResultMessage) and folded.user_message_uuids == ids
    assert folded.user_message_uuid == ids[-1]


async def test_rewind_files_to_a_folded_message_goes_back_to_its_turns_start(fake_api, project):
    notes = project / "notes.txt"
    notes.write_text("mine\n")
    first = hang(reply(text("First answer.")), after_events=3)
    fake_api.enqueue(first)
    fake_api.enqueue(reply(tool_use("Read", {"file_path": str(notes)})))
    fake_api.enqueue(reply(tool_use("Write", {"file_path": str(notes), "content": "agent\n"})))
    fake_api.enqueue(reply(text("Wrote it.")))
    options = sdk_options(
        fake_api, project, allowed_tools=["Write"], enable_file_checkpointing=True
    )

    async with ClaudeSDKClient(options) as client:
        await client.query("one")
        await asyncio.to_thread(first.reached.wait, 30)
        ids = [str(uuid.uuid4()) for _ in range(2)]
        for words, message_id in zip(("read notes", "then write them"), ids, strict=True):
            await client.query(user_message(words, message_id))
        await client.get_mcp_status()
        first.release()
        await until_result(client.receive_response())
        folded = result_of(await until_result(client.receive_response()))
        assert notes.read_text() == "agent\n"
        await client.rewind_files(ids[-1])  # the second of the two folded messages

    assert folded.user_message_uuids == ids
    assert notes.read_text() == "mine\n"


async def test_a_slash_compact_prompt_compacts_as_claude_code_does(fake_api, project):
    """`client.query("/compact ...")`: the session is summarised (no answer is asked
    for), a `compact_boundary` system message says so, and the next turn goes on from
    the summary."""
    (project / "big.txt").write_text("filler line of a big file\n" * 1200)
    fake_api.enqueue(reply(tool_use("Read", {"file_path": str(project / "big.txt")})))
    fake_api.enqueue(reply(text("Read it.")))
    fake_api.enqueue(reply(text("SUMMARY: the big file was read.")))
    fake_api.enqueue(reply(text("Carry on.")))
    options = sdk_options(fake_api, project)
    options.env["AGENTCLI_CONTEXT_WINDOW"] = "40000"  # room for the read, a split for /compact

    async with ClaudeSDKClient(options) as client:
        await client.query("read big.txt")
        assert result_of(await until_result(client.receive_response())).subtype == "success"
        await client.query("/compact what was read")
        compacted = await until_result(client.receive_response())
        await client.query("go on")
        went_on = await until_result(client.receive_response())

    boundary = [m for m in compacted if isinstance(m, SystemMessage)]
    assert [m.subtype for m in boundary][-1] == "compact_boundary"
    assert boundary[-1].data["compact_metadata"]["trigger"] == "manual"
    assert result_of(compacted).subtype == "success" and not result_of(compacted).is_error
    summary_request = json.dumps(fake_api.requests[2].body["messages"][-1])
    assert "what was read" in summary_request and "/compact" not in summary_request
    assert result_of(went_on).result == "Carry on."
    sent = fake_api.requests[3].body["messages"]
    assert "SUMMARY: the big file was read." in json.dumps(sent[0])
    assert "read big.txt" in json.dumps(sent[0])  # the first prompt, carried verbatim
