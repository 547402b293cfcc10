"""Read, Edit, Write and Bash through the client's files and terminals, when it offers them.

The agent runs in the test's process (`agent_in_process`), but for a command in the
editor's terminal, which goes through the real binary (`running_agent`)."""

from __future__ import annotations

import asyncio

from acp import text_block

from tests.fakeapi import reply, text, tool_use
from tests.frontends.acp.client import EditorClient, agent_in_process, running_agent


def last_results(server, index: int) -> list[dict]:
    content = server.requests[index].body["messages"][-1]["content"]
    return [block for block in content if block["type"] == "tool_result"]


async def test_read_sees_the_editors_unsaved_buffer_and_edit_changes_it(fake_api, project):
    config = project / "config.py"
    fake_api.enqueue(reply(tool_use("Read", {"file_path": str(config)})))
    edit = {"file_path": str(config), "old_string": "value = 99", "new_string": "value = 100"}
    fake_api.enqueue(reply(tool_use("Edit", edit)))
    fake_api.enqueue(reply(text("Done.")))
    client = EditorClient(["allow_once"], fs=True)
    client.buffers[str(config)] = "value = 99  # unsaved\n"
    async with agent_in_process(client, project, fake_api) as conn:
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        done = await conn.prompt(session_id=session.session_id, prompt=[text_block("Bump it")])

    assert done.stop_reason == "end_turn"
    read = last_results(fake_api, 1)[0]
    assert "value = 99  # unsaved" in str(read["content"])
    assert client.writes == [(str(config), "value = 100  # unsaved\n")]
    assert config.read_text() == "value = 100  # unsaved\n"  # the editor saved it


async def test_write_creates_a_file_through_the_editor(fake_api, project):
    new = project / "notes.md"
    fake_api.enqueue(reply(tool_use("Write", {"file_path": str(new), "content": "# Notes\n"})))
    fake_api.enqueue(reply(text("Written.")))
    client = EditorClient(fs=True)
    async with agent_in_process(
        client, project, fake_api, "--permission-mode", "acceptEdits"
    ) as conn:
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        await conn.prompt(session_id=session.session_id, prompt=[text_block("Write notes")])

    assert client.writes == [(str(new), "# Notes\n")]
    (created,) = [u for u in client.of_kind("tool_call_update") if u.status == "completed"]
    diff = created.content[0]
    assert (diff.path, diff.old_text, diff.new_text) == (str(new), None, "# Notes\n")


async def test_without_the_fs_capability_the_disk_is_used(fake_api, project):
    config = project / "config.py"
    fake_api.enqueue(reply(tool_use("Read", {"file_path": str(config)})))
    fake_api.enqueue(reply(text("Read.")))
    client = EditorClient(fs=False)
    client.buffers[str(config)] = "value = 99\n"
    async with agent_in_process(client, project, fake_api) as conn:
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        await conn.prompt(session_id=session.session_id, prompt=[text_block("Read it")])

    assert client.reads == []
    assert "value = 1" in str(last_results(fake_api, 1)[0]["content"])


async def test_bash_runs_in_the_editors_terminal(fake_api, project):
    command = "echo from-the-terminal && cd sub && pwd"
    (project / "sub").mkdir()
    fake_api.enqueue(reply(tool_use("Bash", {"command": command})))
    fake_api.enqueue(reply(tool_use("Bash", {"command": "pwd"})))
    fake_api.enqueue(reply(text("Ran.")))
    client = EditorClient(["allow_once", "allow_once"], terminal=True)
    async with running_agent(client, project, fake_api) as conn:
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        done = await conn.prompt(session_id=session.session_id, prompt=[text_block("Run it")])

    assert done.stop_reason == "end_turn"
    assert list(client.terminals) == ["term-1", "term-2"]
    first = last_results(fake_api, 1)[0]
    assert "from-the-terminal" in str(first["content"]) and first.get("is_error") is not True
    second = last_results(fake_api, 2)[0]
    assert str(project / "sub") in str(second["content"])  # the `cd` carried over
    shown = [u for u in client.of_kind("tool_call_update") if u.status == "completed"]
    assert [u.content[0].terminal_id for u in shown] == ["term-1", "term-2"]


async def test_a_failing_command_in_the_terminal_reports_its_exit_code(fake_api, project):
    fake_api.enqueue(reply(tool_use("Bash", {"command": "echo oops; exit 3"})))
    fake_api.enqueue(reply(text("It failed.")))
    client = EditorClient(["allow_once"], terminal=True)
    async with agent_in_process(client, project, fake_api) as conn:
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        await conn.prompt(session_id=session.session_id, prompt=[text_block("Run it")])

    sent = last_results(fake_api, 1)[0]
    result = str(sent["content"])
    assert "oops" in result and "Exit code: 3" in result and sent["is_error"] is True
    (shown,) = [u for u in client.of_kind("tool_call_update") if u.status == "failed"]
    assert shown.content[0].terminal_id == "term-1"  # the editor still shows its terminal


async def test_cancel_stops_the_command_in_the_editors_terminal(fake_api, project):
    fake_api.enqueue(reply(tool_use("Bash", {"command": "sleep 60"})))
    client = EditorClient(["allow_once"], terminal=True)
    async with agent_in_process(client, project, fake_api) as conn:
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        prompt = asyncio.ensure_future(
            conn.prompt(session_id=session.session_id, prompt=[text_block("Wait")])
        )
        (terminal,) = await client.wait_for(lambda: list(client.terminals.values()))
        await conn.cancel(session_id=session.session_id)
        done = await asyncio.wait_for(prompt, 30)
        await asyncio.wait_for(terminal.wait(), 30)  # killed, not left to run

    assert done.stop_reason == "cancelled"


async def test_a_command_past_its_timeout_is_killed_in_the_terminal(fake_api, project):
    fake_api.enqueue(reply(tool_use("Bash", {"command": "sleep 60", "timeout": 500})))
    fake_api.enqueue(reply(text("Too slow.")))
    client = EditorClient(["allow_once"], terminal=True)
    async with agent_in_process(client, project, fake_api) as conn:
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        await conn.prompt(session_id=session.session_id, prompt=[text_block("Wait")])

    result = last_results(fake_api, 1)[0]
    assert result["is_error"] is True and "timed out" in str(result["content"])
    assert client.terminals["term-1"].returncode is not None
