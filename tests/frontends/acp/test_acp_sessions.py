"""`agentcli --acp` driven by the ACP library's client, against the fake Messages API.

The agent runs in the test's process (`agent_in_process`); an edit asked for and
allowed, and a session one process wrote and another loads, go through the real
binary (`running_agent`), as do the tests of the process itself (test_acp_bad_input.py).
"""

from __future__ import annotations

import asyncio
import json
import shlex
import sys
from pathlib import Path

import pytest
from acp import RequestError, text_block

from tests.fakeapi import hang, http_error, reply, text, thinking, tool_use
from tests.frontends.acp.client import WAIT, EditorClient, agent_in_process, running_agent


def read_then_edit(server, config: Path) -> None:
    server.enqueue(reply(text("Let me read it."), tool_use("Read", {"file_path": str(config)})))
    edit = {"file_path": str(config), "old_string": "value = 1", "new_string": "value = 2"}
    server.enqueue(reply(tool_use("Edit", edit)))
    server.enqueue(reply(text("Changed value to 2.")))


def tool_results(server, index: int) -> list[dict]:
    content = server.requests[index].body["messages"][-1]["content"]
    return [block for block in content if block["type"] == "tool_result"]


async def test_initialize_says_what_the_agent_can_do(fake_api, project):
    client = EditorClient()
    async with agent_in_process(client, project, fake_api) as conn:
        from acp import PROTOCOL_VERSION

        answer = await conn.initialize(protocol_version=PROTOCOL_VERSION)
        session = await conn.new_session(cwd=str(project), mcp_servers=[])

        commands = await client.wait_for(lambda: client.of_kind("available_commands_update"))

    capabilities = answer.agent_capabilities
    assert answer.protocol_version == PROTOCOL_VERSION
    assert capabilities.load_session is True
    assert capabilities.prompt_capabilities.embedded_context is True
    assert capabilities.mcp_capabilities.http is True
    assert answer.agent_info.name == "agentcli"
    assert session.session_id
    assert session.modes.current_mode_id == "default"
    modes = [mode.id for mode in session.modes.available_modes]
    assert modes == ["default", "acceptEdits", "plan"]
    names = {command.name for command in commands[0].available_commands}
    assert {"compact", "cost", "context", "memory"} <= names
    assert not names & {"init", "resume", "theme", "exit"}  # the app's


async def test_a_prompt_reads_and_edits_a_file_with_permission_allowed_once(fake_api, project):
    config = project / "config.py"
    read_then_edit(fake_api, config)
    client = EditorClient(["allow_once"])
    async with running_agent(client, project, fake_api) as conn:
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        done = await conn.prompt(session_id=session.session_id, prompt=[text_block("Set it to 2")])

    assert done.stop_reason == "end_turn"
    assert config.read_text() == "value = 2\n"
    chunks = "".join(u.content.text for u in client.of_kind("agent_message_chunk"))
    assert chunks == "Let me read it.Changed value to 2."
    read_call, edit_call = client.of_kind("tool_call")
    assert (read_call.kind, read_call.title) == ("read", "Read config.py")
    assert read_call.locations[0].path == str(config)
    assert read_call.raw_input == {"file_path": str(config)}
    assert edit_call.kind == "edit"
    tool_call, options = client.questions[0]
    assert tool_call.tool_call_id == edit_call.tool_call_id
    assert [o.kind for o in options] == [
        "allow_once",
        "allow_always",
        "allow_always",
        "reject_once",
        "reject_always",
    ]
    assert (
        tool_call.content[0].old_text == "value = 1"
        and tool_call.content[0].new_text == "value = 2"
    )
    finished = [u for u in client.of_kind("tool_call_update") if u.status == "completed"]
    assert [u.tool_call_id for u in finished] == [read_call.tool_call_id, edit_call.tool_call_id]
    diff = finished[1].content[0]
    assert (diff.type, diff.path) == ("diff", str(config))
    assert (diff.old_text, diff.new_text) == ("value = 1", "value = 2")


async def test_a_rejected_edit_changes_nothing_and_the_turn_goes_on(fake_api, project):
    config = project / "config.py"
    read_then_edit(fake_api, config)
    client = EditorClient(["reject_once"])
    async with agent_in_process(client, project, fake_api) as conn:
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        done = await conn.prompt(session_id=session.session_id, prompt=[text_block("Set it to 2")])

    assert done.stop_reason == "end_turn"
    assert config.read_text() == "value = 1\n"
    refused = tool_results(fake_api, 2)[0]
    assert refused["is_error"] is True and "denied" in str(refused["content"])
    failed = [u for u in client.of_kind("tool_call_update") if u.status == "failed"]
    assert len(failed) == 1


async def test_reject_always_refuses_the_same_command_again_without_asking(fake_api, project):
    fake_api.enqueue(reply(tool_use("Bash", {"command": "npm publish"})))
    fake_api.enqueue(reply(tool_use("Bash", {"command": "npm publish --tag next"})))
    fake_api.enqueue(reply(text("Not published.")))
    client = EditorClient(["reject_always"])
    async with agent_in_process(client, project, fake_api) as conn:
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        done = await conn.prompt(session_id=session.session_id, prompt=[text_block("Publish")])

    assert done.stop_reason == "end_turn"
    assert len(client.questions) == 1  # the second publish was refused unasked
    second = tool_results(fake_api, 2)[0]
    assert second["is_error"] is True and "npm publish" in str(second["content"])


async def test_cancel_mid_stream_ends_the_prompt_as_cancelled(fake_api, project):
    stuck = hang(reply(text("A long answer that never ends")), after_events=4)
    fake_api.enqueue(stuck)
    client = EditorClient()
    async with agent_in_process(client, project, fake_api) as conn:
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        prompt = asyncio.ensure_future(
            conn.prompt(session_id=session.session_id, prompt=[text_block("Talk")])
        )
        assert await asyncio.to_thread(stuck.reached.wait, 30)
        await conn.cancel(session_id=session.session_id)
        done = await asyncio.wait_for(prompt, 30)

    assert done.stop_reason == "cancelled"


async def test_cancel_at_a_permission_question_withdraws_it(fake_api, project):
    config = project / "config.py"
    read_then_edit(fake_api, config)
    client = EditorClient([WAIT])
    async with agent_in_process(client, project, fake_api) as conn:
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        prompt = asyncio.ensure_future(
            conn.prompt(session_id=session.session_id, prompt=[text_block("Set it to 2")])
        )
        await client.wait_for(lambda: client.questions)
        await conn.cancel(session_id=session.session_id)
        done = await asyncio.wait_for(prompt, 30)

    assert done.stop_reason == "cancelled"
    assert config.read_text() == "value = 1\n"
    assert len(fake_api.requests) == 2  # the model was not asked again


async def test_load_session_replays_the_conversation_and_goes_on(fake_api, project):
    fake_api.enqueue(reply(text("Hi there.")))
    fake_api.enqueue(reply(text("Still here.")))
    first = EditorClient()
    async with running_agent(first, project, fake_api) as conn:
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        await conn.prompt(session_id=session.session_id, prompt=[text_block("Hello")])

    again = EditorClient()
    async with running_agent(again, project, fake_api) as conn:
        await conn.load_session(cwd=str(project), session_id=session.session_id, mcp_servers=[])
        replayed = [
            (u.session_update, u.content.text) for u in again.updates if hasattr(u, "content")
        ]
        done = await conn.prompt(session_id=session.session_id, prompt=[text_block("And now?")])

    assert replayed == [("user_message_chunk", "Hello"), ("agent_message_chunk", "Hi there.")]
    assert done.stop_reason == "end_turn"
    sent = fake_api.requests[1].body["messages"]
    assert [m["role"] for m in sent] == ["user", "assistant", "user"]


async def test_set_mode_accept_edits_lets_the_edit_run_without_asking(fake_api, project):
    config = project / "config.py"
    read_then_edit(fake_api, config)
    client = EditorClient()
    async with agent_in_process(client, project, fake_api) as conn:
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        await conn.set_session_mode(session_id=session.session_id, mode_id="acceptEdits")
        done = await conn.prompt(session_id=session.session_id, prompt=[text_block("Set it to 2")])

    assert done.stop_reason == "end_turn" and client.questions == []
    assert config.read_text() == "value = 2\n"


async def test_a_todo_list_becomes_the_plan(fake_api, project):
    todos = [
        {"content": "Read the code", "status": "completed", "activeForm": "Reading the code"},
        {"content": "Fix the bug", "status": "in_progress", "activeForm": "Fixing the bug"},
    ]
    fake_api.enqueue(reply(tool_use("TodoWrite", {"todos": todos})))
    fake_api.enqueue(reply(text("Planned.")))
    client = EditorClient()
    async with agent_in_process(client, project, fake_api) as conn:
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        await conn.prompt(session_id=session.session_id, prompt=[text_block("Plan it")])

    (plan,) = client.of_kind("plan")
    assert [(e.content, e.status) for e in plan.entries] == [
        ("Read the code", "completed"),
        ("Fix the bug", "in_progress"),
    ]


async def test_a_list_the_tool_refuses_is_not_the_plan_and_load_replays_the_plan(fake_api, project):
    todos = [{"content": "Fix the bug", "status": "in_progress", "activeForm": "Fixing it"}]
    refused = [{"content": "Bad", "status": "someday", "activeForm": "Being bad"}]
    fake_api.enqueue(reply(tool_use("TodoWrite", {"todos": todos})))
    fake_api.enqueue(reply(tool_use("TodoWrite", {"todos": refused})))
    fake_api.enqueue(reply(text("Planned.")))
    first = EditorClient()
    async with agent_in_process(first, project, fake_api) as conn:
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        await conn.prompt(session_id=session.session_id, prompt=[text_block("Plan it")])
    again = EditorClient()
    async with agent_in_process(again, project, fake_api) as conn:
        await conn.load_session(cwd=str(project), session_id=session.session_id, mcp_servers=[])

    assert tool_results(fake_api, 2)[0]["is_error"] is True
    for client in (first, again):
        (plan,) = client.of_kind("plan")
        assert [(e.content, e.status) for e in plan.entries] == [("Fix the bug", "in_progress")]


async def test_the_client_cancelling_a_question_stops_the_turn(fake_api, project):
    config = project / "config.py"
    read_then_edit(fake_api, config)
    client = EditorClient(["cancelled"])
    async with agent_in_process(client, project, fake_api) as conn:
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        done = await conn.prompt(session_id=session.session_id, prompt=[text_block("Set it to 2")])

    assert done.stop_reason == "cancelled"
    assert config.read_text() == "value = 1\n"
    assert len(fake_api.requests) == 2


async def test_a_folder_the_client_adds_is_part_of_the_session(fake_api, project, tmp_path):
    extra = tmp_path / "shared"
    extra.mkdir()
    (extra / "lib.py").write_text("shared = True\n")
    fake_api.enqueue(reply(tool_use("Read", {"file_path": str(extra / "lib.py")})))
    fake_api.enqueue(reply(text("Read it.")))
    client = EditorClient()  # no answers: a question would fail the test
    async with agent_in_process(client, project, fake_api) as conn:
        session = await conn.new_session(
            cwd=str(project), additional_directories=[str(extra)], mcp_servers=[]
        )
        await conn.prompt(session_id=session.session_id, prompt=[text_block("Read lib")])

    assert client.questions == []
    assert "shared = True" in str(tool_results(fake_api, 1)[0]["content"])


async def test_mcp_servers_the_client_passes_offer_their_tools(fake_api, project):
    from acp.schema import EnvVariable, McpServerStdio

    repo = Path(__file__).resolve().parents[3]
    server = McpServerStdio(
        name="t",
        command=sys.executable,
        args=["-m", "tests.mcp.server"],
        env=[EnvVariable(name="PYTHONPATH", value=str(repo))],
    )
    fake_api.enqueue(reply(tool_use("mcp__t__echo", {"text": "hi"})))
    fake_api.enqueue(reply(text("Echoed.")))
    client = EditorClient(["allow_once"])
    async with agent_in_process(client, project, fake_api) as conn:
        session = await conn.new_session(cwd=str(project), mcp_servers=[server])
        done = await conn.prompt(session_id=session.session_id, prompt=[text_block("Echo hi")])

    assert done.stop_reason == "end_turn"
    assert "mcp__t__echo" in [tool["name"] for tool in fake_api.requests[0].body["tools"]]
    assert "hi" in str(tool_results(fake_api, 1)[0]["content"])


async def test_max_turns_ends_the_prompt_with_max_turn_requests(fake_api, project):
    fake_api.enqueue(reply(tool_use("Read", {"file_path": str(project / "config.py")})))
    client = EditorClient()
    async with agent_in_process(client, project, fake_api, "--max-turns", "1") as conn:
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        done = await conn.prompt(session_id=session.session_id, prompt=[text_block("Look")])

    assert done.stop_reason == "max_turn_requests"


async def test_a_model_error_is_an_error_response(fake_api, project):
    fake_api.enqueue(http_error(400, message="prompt is too long"))
    client = EditorClient()
    async with agent_in_process(client, project, fake_api) as conn:
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        with pytest.raises(RequestError) as failed:
            await conn.prompt(session_id=session.session_id, prompt=[text_block("Hi")])

    assert "prompt is too long" in str(failed.value)


async def test_allowed_for_the_session_the_same_command_is_not_asked_again(fake_api, project):
    fake_api.enqueue(reply(tool_use("Bash", {"command": "touch made.txt"})))
    fake_api.enqueue(reply(tool_use("Bash", {"command": "touch made.txt"})))
    fake_api.enqueue(reply(text("Twice.")))
    client = EditorClient(["allow_session"])
    async with agent_in_process(client, project, fake_api) as conn:
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        await conn.prompt(session_id=session.session_id, prompt=[text_block("Touch it twice")])

    assert len(client.questions) == 1
    _tool_call, options = client.questions[0]
    assert "this session" in options[1].name and "this project" in options[2].name
    assert all(not r.get("is_error") for r in tool_results(fake_api, 1) + tool_results(fake_api, 2))


async def test_thinking_and_bash_output_stream_as_updates(fake_api, project):
    fake_api.enqueue(
        reply(thinking("I should list the files."), tool_use("Bash", {"command": "echo hello"}))
    )
    fake_api.enqueue(reply(text("Listed.")))
    client = EditorClient(["allow_once"])
    async with agent_in_process(client, project, fake_api) as conn:
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        await conn.prompt(session_id=session.session_id, prompt=[text_block("List")])

    thought = "".join(u.content.text for u in client.of_kind("agent_thought_chunk"))
    assert thought == "I should list the files."
    (call,) = client.of_kind("tool_call")
    assert (call.kind, call.title) == ("execute", "Bash echo hello")
    statuses = [u.status for u in client.of_kind("tool_call_update") if u.status]
    assert statuses == ["in_progress", "completed"]
    last = client.of_kind("tool_call_update")[-1]
    assert last.content[0].content.text.strip() == "hello"


async def test_a_resource_link_reaches_the_model_as_a_mention(fake_api, project):
    from acp import resource_link_block

    fake_api.enqueue(reply(text("Seen.")))
    link = resource_link_block("config.py", f"file://{project / 'config.py'}")
    client = EditorClient()
    async with agent_in_process(client, project, fake_api) as conn:
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        await conn.prompt(session_id=session.session_id, prompt=[text_block("Look at"), link])

    sent = fake_api.requests[0].body["messages"][0]["content"]
    texts = [block["text"] for block in sent if block["type"] == "text"]
    assert texts[:2] == ["Look at", f"[@config.py](file://{project / 'config.py'})"]


async def test_a_listed_slash_command_runs_here(fake_api, project):
    client = EditorClient()
    async with agent_in_process(client, project, fake_api) as conn:
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        done = await conn.prompt(session_id=session.session_id, prompt=[text_block("/cost")])

    assert done.stop_reason == "end_turn"
    said = "".join(u.content.text for u in client.of_kind("agent_message_chunk"))
    assert "$" in said or "token" in said.lower()
    assert fake_api.requests == []  # the model was not called


async def test_load_replays_tool_calls_with_their_diffs(fake_api, project):
    config = project / "config.py"
    read_then_edit(fake_api, config)
    first = EditorClient(["allow_once"])
    async with agent_in_process(first, project, fake_api) as conn:
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        await conn.prompt(session_id=session.session_id, prompt=[text_block("Set it to 2")])

    again = EditorClient()
    async with agent_in_process(again, project, fake_api) as conn:
        await conn.load_session(cwd=str(project), session_id=session.session_id, mcp_servers=[])

    assert [c.kind for c in again.of_kind("tool_call")] == ["read", "edit"]
    done = [u for u in again.of_kind("tool_call_update") if u.status == "completed"]
    diff = done[1].content[0]
    assert (diff.old_text, diff.new_text) == ("value = 1", "value = 2")


async def test_an_approved_plan_leaves_plan_mode_and_the_client_hears_of_it(fake_api, project):
    fake_api.enqueue(reply(tool_use("ExitPlanMode", {"plan": "1. Change the value"})))
    fake_api.enqueue(reply(text("Plan approved.")))
    client = EditorClient(["allow_once"])
    async with agent_in_process(client, project, fake_api) as conn:
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        await conn.set_session_mode(session_id=session.session_id, mode_id="plan")
        await conn.prompt(session_id=session.session_id, prompt=[text_block("Plan it")])

    (call,) = client.of_kind("tool_call")
    assert call.kind == "switch_mode"
    assert [u.current_mode_id for u in client.of_kind("current_mode_update")] == ["default"]


def python_command(code: str) -> str:
    return f"{shlex.quote(sys.executable)} -c {shlex.quote(code)}"


async def test_hooks_speak_to_the_client_and_a_blocked_prompt_is_a_refusal(fake_api, project):
    welcome = python_command('print(\'{"systemMessage": "Welcome from the hook"}\')')
    block = python_command("import sys; sys.stderr.write('not today'); sys.exit(2)")
    hooks = {
        "SessionStart": [{"matcher": "", "hooks": [{"type": "command", "command": welcome}]}],
        "UserPromptSubmit": [{"matcher": "", "hooks": [{"type": "command", "command": block}]}],
    }
    (project / ".agentcli").mkdir()
    (project / ".agentcli" / "settings.json").write_text(json.dumps({"hooks": hooks}))
    client = EditorClient()
    async with agent_in_process(client, project, fake_api) as conn:
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        said = await client.wait_for(lambda: client.of_kind("agent_message_chunk"))
        done = await conn.prompt(session_id=session.session_id, prompt=[text_block("Hi")])

    assert said[0].content.text == "Welcome from the hook"
    assert done.stop_reason == "refusal"
    told = "".join(u.content.text for u in client.of_kind("agent_message_chunk"))
    assert "not today" in told
    assert fake_api.requests == []
