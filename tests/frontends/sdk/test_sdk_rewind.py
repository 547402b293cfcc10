"""`ClaudeSDKClient.rewind_files()` on agentcli: the user message's `uuid` (echoed with
`--replay-user-messages`) names the prompt, and the files the agent changed since go
back as they were, through the same checkpoints as `/rewind`."""

from __future__ import annotations

import pytest
from claude_agent_sdk import ClaudeSDKClient, UserMessage

from tests.fakeapi import reply, text, tool_use
from tests.frontends.sdk.support import result_of, sdk_options, until_result


def _options(fake_api, project):
    return sdk_options(
        fake_api,
        project,
        allowed_tools=["Write"],
        enable_file_checkpointing=True,
        extra_args={"replay-user-messages": None},
    )


def _prompt_ids(messages) -> list[str]:
    """The ids of the person's messages (echoed as sent: text), not of tool results."""
    return [m.uuid for m in messages if isinstance(m, UserMessage) and isinstance(m.content, str)]


async def test_rewind_files_puts_back_what_the_agent_wrote_since_a_user_message(fake_api, project):
    notes, new = project / "notes.txt", project / "new.txt"
    notes.write_text("mine\n")
    fake_api.enqueue(reply(tool_use("Read", {"file_path": str(notes)})))
    fake_api.enqueue(reply(tool_use("Write", {"file_path": str(notes), "content": "one\n"})))
    fake_api.enqueue(reply(text("Wrote it.")))
    fake_api.enqueue(reply(tool_use("Write", {"file_path": str(new), "content": "two\n"})))
    fake_api.enqueue(reply(text("Created it.")))

    async with ClaudeSDKClient(_options(fake_api, project)) as client:
        await client.query("write notes")
        first = await until_result(client.receive_response())
        await client.query("create new")
        second = await until_result(client.receive_response())
        assert notes.read_text() == "one\n" and new.read_text() == "two\n"

        (first_id,) = _prompt_ids(first)
        assert _prompt_ids(second) != [first_id]
        await client.rewind_files(first_id)

    assert not result_of(first).is_error and not result_of(second).is_error
    assert notes.read_text() == "mine\n"  # as before the first prompt
    assert not new.exists()  # the agent created it after that point


async def test_rewind_files_refuses_to_overwrite_what_the_person_changed(fake_api, project):
    notes = project / "notes.txt"
    notes.write_text("mine\n")
    fake_api.enqueue(reply(tool_use("Read", {"file_path": str(notes)})))
    fake_api.enqueue(reply(tool_use("Write", {"file_path": str(notes), "content": "agent\n"})))
    fake_api.enqueue(reply(text("Wrote it.")))

    async with ClaudeSDKClient(_options(fake_api, project)) as client:
        await client.query("write notes")
        (prompt_id,) = _prompt_ids(await until_result(client.receive_response()))
        assert notes.read_text() == "agent\n"
        notes.write_text("edited by hand\n")
        # The SDK raises a plain Exception with the error response's text.
        with pytest.raises(Exception, match=r"nothing was rewound: .*notes\.txt"):
            await client.rewind_files(prompt_id)
        with pytest.raises(Exception, match="no user message 'no-such-message'"):
            await client.rewind_files("no-such-message")

    assert notes.read_text() == "edited by hand\n"
