"""The manager against the real test server over stdio (tests/mcp/server.py)."""

from __future__ import annotations

import asyncio
import json
import uuid

import pytest

from tests.mcp.support import (
    SHARED,
    command,
    eventually,
    process_gone,
    run_tool,
    state_of,
    stdio,
    tagged_processes,
    tool_named,
    until,
)

# The tests on the module's one shared server (tests/mcp/conftest.py): they run in its loop.
shared = pytest.mark.asyncio(loop_scope="module")


@shared
async def test_a_server_connects_and_its_tools_reach_the_model_as_listed(shared_manager):
    manager = shared_manager

    status = state_of(manager, SHARED)
    assert (status.state, status.transport, status.scope) == ("connected", "stdio", "local")
    assert status.tools == 9 and status.prompts == 1 and status.resources == 2
    assert status.server_info == "agentcli-test 1.0"
    echo = tool_named(manager, "mcp__shared__echo").schema()
    assert echo["description"] == "Say the text back."
    assert echo["input_schema"]["properties"]["text"]["type"] == "string"
    assert echo["input_schema"]["required"] == ["text"]
    names = [tool.name for tool in manager.tools()]
    assert names == sorted(names)
    assert names[:2] == ["ListMcpResourcesTool", "ReadMcpResourceTool"]


@shared
async def test_text_image_and_structured_content_all_reach_the_model(shared_manager):
    result = await run_tool(tool_named(shared_manager, "mcp__shared__picture"), {})

    assert not result.is_error
    text, image, structured = result.content
    assert text == {"type": "text", "text": "A red dot."}
    assert image["type"] == "image" and image["source"]["media_type"] == "image/png"
    assert json.loads(structured["text"]) == {"width": 1, "height": 1, "color": "red"}
    assert result.display is not None and result.display.model_dump()["images"] == 1


@shared
async def test_embedded_resources_and_links_are_said_in_text(shared_manager):
    result = await run_tool(tool_named(shared_manager, "mcp__shared__document"), {})

    assert [block["text"] for block in result.content] == [
        "[Resource from shared at test://notes.txt] Remember the milk.",
        "[Resource link: greeting] test://greeting (a friendly word)",
    ]


@shared
async def test_a_tool_error_is_an_error_result_with_the_servers_words(shared_manager):
    result = await run_tool(tool_named(shared_manager, "mcp__shared__fail"), {})

    assert result.is_error
    assert result.content == [
        {"type": "text", "text": "Error executing tool fail: the disk is full"}
    ]


async def test_a_call_past_the_tool_timeout_ends_in_an_error_and_is_cancelled(
    mcp_manager, tmp_path
):
    manager = mcp_manager(stdio("sleepy"), tool_s=0.5)
    await manager.start()
    await manager.wait_ready()
    mark = tmp_path / "mark"

    result = await run_tool(
        tool_named(manager, "mcp__sleepy__slow"), {"seconds": 60, "mark": str(mark)}
    )

    assert result.is_error
    assert "timed out after 0.5 s (MCP_TOOL_TIMEOUT)" in str(result.content)
    await eventually(lambda: mark.read_text() == "cancelled")


async def test_cancelling_a_call_ends_it_and_tells_the_server(mcp_manager, tmp_path):
    manager = mcp_manager(stdio("sleepy"))
    await manager.start()
    await manager.wait_ready()
    mark = tmp_path / "mark"
    tool = tool_named(manager, "mcp__sleepy__slow")
    call = asyncio.create_task(run_tool(tool, {"seconds": 60, "mark": str(mark)}))
    await eventually(lambda: mark.exists())

    call.cancel()

    await asyncio.gather(call, return_exceptions=True)
    assert call.cancelled()
    await eventually(lambda: mark.read_text() == "cancelled")
    assert state_of(manager, "sleepy").state == "connected"  # the server goes on


async def test_a_server_dying_mid_call_gives_an_error_result_and_is_marked_failed(mcp_manager):
    manager = mcp_manager(stdio("fragile"))
    await manager.start()
    await manager.wait_ready()

    result = await run_tool(tool_named(manager, "mcp__fragile__crash"), {})

    assert result.is_error
    assert "the server process exited during tool crash" in str(result.content)
    assert "out of cheese" in str(result.content)
    await until(manager, lambda: state_of(manager, "fragile").state == "failed")
    status = state_of(manager, "fragile")
    assert status.error == "the server process exited"
    assert "about to crash: out of cheese" in status.stderr_tail
    assert not [t for t in manager.tools() if t.name.startswith("mcp__fragile__")]


async def test_a_failed_server_can_be_reconnected(mcp_manager):
    manager = mcp_manager(stdio("fragile"))
    await manager.start()
    await manager.wait_ready()
    await run_tool(tool_named(manager, "mcp__fragile__crash"), {})
    await until(manager, lambda: state_of(manager, "fragile").state == "failed")

    await manager.reconnect("fragile")
    await manager.wait_ready()

    assert state_of(manager, "fragile").state == "connected"
    result = await run_tool(tool_named(manager, "mcp__fragile__echo"), {"text": "back"})
    assert result.content == [{"type": "text", "text": "back"}]


async def test_a_disabled_server_stops_and_its_tools_go(mcp_manager):
    manager = mcp_manager(stdio("quiet"))
    await manager.start()
    await manager.wait_ready()
    pid = json.loads(
        (await run_tool(tool_named(manager, "mcp__quiet__pid"), {})).content[0]["text"]
    )

    await manager.disable("quiet")

    assert state_of(manager, "quiet").state == "disabled"
    assert manager.tools() == []
    assert process_gone(pid)


async def test_a_server_that_fails_at_start_is_failed_with_its_stderr(mcp_manager):
    manager = mcp_manager(stdio("bad", "--fail-at-start"))
    await manager.start()

    await manager.wait_ready()

    status = state_of(manager, "bad")
    assert status.state == "failed" and status.error
    assert "cannot start: the config file is missing" in status.stderr_tail


async def test_a_missing_command_is_named(mcp_manager):
    manager = mcp_manager(command("ghost", "/nonexistent/mcp-server"))
    await manager.start()

    await manager.wait_ready()

    assert state_of(manager, "ghost").error == "command not found: /nonexistent/mcp-server"


async def test_a_server_slower_than_the_startup_timeout_fails_and_is_ended(mcp_manager):
    tag = uuid.uuid4().hex
    manager = mcp_manager(stdio("slowpoke", "--delay", "60", "--tag", tag), startup_s=0.5)
    await manager.start()

    await manager.wait_ready()

    assert state_of(manager, "slowpoke").error == "did not start within 0.5 s (MCP_TIMEOUT)"
    await eventually(lambda: tagged_processes(tag) == [])


async def test_wait_ready_waits_for_a_late_server_to_fail_itself(mcp_manager, monkeypatch):
    """On a busy machine a server's own deadline can fire after a wait on the same
    deadline: wait_ready() must not come back while the server is still pending."""
    from agentcli.mcp.connection import Connection

    expire = Connection._startup_expired

    def late(connection, startup):  # the event loop was busy when the deadline came
        asyncio.get_running_loop().call_later(0.3, expire, connection, startup)

    monkeypatch.setattr(Connection, "_startup_expired", late)
    tag = uuid.uuid4().hex
    manager = mcp_manager(stdio("slowpoke", "--delay", "60", "--tag", tag), startup_s=0.5)
    await manager.start()

    assert await manager.wait_ready()

    assert state_of(manager, "slowpoke").error == "did not start within 0.5 s (MCP_TIMEOUT)"
    await eventually(lambda: tagged_processes(tag) == [])


async def test_a_slow_server_delays_nobody_else(mcp_manager):
    tag = uuid.uuid4().hex
    manager = mcp_manager(stdio("quick"), stdio("slowpoke", "--delay", "60", "--tag", tag))
    await manager.start()

    await until(manager, lambda: state_of(manager, "quick").state == "connected")

    assert state_of(manager, "slowpoke").state == "pending"
    assert [t.name for t in manager.tools() if t.name.startswith("mcp__quick__")]


async def test_a_project_server_not_approved_is_not_started(mcp_manager):
    tag = uuid.uuid4().hex
    manager = mcp_manager(stdio("repo", "--tag", tag, approved=False, scope="project"))
    await manager.start()

    assert await manager.wait_ready()

    assert state_of(manager, "repo").state == "needs approval"
    assert tagged_processes(tag) == []


async def test_close_ends_every_stdio_process(mcp_manager):
    manager = mcp_manager(stdio("a"), stdio("b", "--legacy"), stdio("c"))
    await manager.start()
    await manager.wait_ready()
    pids = [
        json.loads(
            (await run_tool(tool_named(manager, f"mcp__{name}__pid"), {})).content[0]["text"]
        )
        for name in "abc"
    ]

    await manager.close()

    assert all(process_gone(pid) for pid in pids)


async def test_close_ends_a_server_still_starting(mcp_manager):
    tag = uuid.uuid4().hex
    manager = mcp_manager(stdio("slowpoke", "--delay", "60", "--tag", tag))
    await manager.start()
    await eventually(lambda: bool(tagged_processes(tag)))

    await manager.close()

    assert tagged_processes(tag) == []


async def test_a_changed_tool_list_is_seen_for_both_protocol_eras(mcp_manager):
    manager = mcp_manager(stdio("modern"), stdio("legacy", "--legacy"))
    await manager.start()
    await manager.wait_ready()
    names = lambda: {tool.name for tool in manager.tools()}  # noqa: E731
    assert "mcp__modern__extra" not in names() and "mcp__legacy__extra" not in names()

    await run_tool(tool_named(manager, "mcp__modern__grow"), {})
    await run_tool(tool_named(manager, "mcp__legacy__grow"), {})

    # Once the call that changed them returns, the lists are refetched.
    assert {"mcp__modern__extra", "mcp__legacy__extra"} <= names()
    result = await run_tool(tool_named(manager, "mcp__legacy__extra"), {})
    assert result.content == [{"type": "text", "text": "extra!"}]


@shared
async def test_resources_can_be_listed_and_read_and_prompts_got(shared_manager):
    manager = shared_manager

    listed = await run_tool(tool_named(manager, "ListMcpResourcesTool"), {})
    read = await run_tool(
        tool_named(manager, "ReadMcpResourceTool"), {"server": SHARED, "uri": "test://greeting"}
    )
    picture = await manager.read_resource(SHARED, "test://dot.png")
    prompt = await manager.get_prompt(SHARED, "review", {"topic": "the plan"})

    assert {r["uri"] for r in json.loads(listed.content)} == {"test://greeting", "test://dot.png"}
    assert read.content == [
        {"type": "text", "text": "[Resource from shared at test://greeting] hello"}
    ]
    assert picture[1]["type"] == "image"
    assert prompt == [
        {"role": "user", "content": [{"type": "text", "text": "Please review the plan."}]}
    ]
    assert [p.name for p in manager.prompts()] == ["review"]


@shared
async def test_read_only_tools_may_run_together_and_others_alone(shared_manager):
    manager = shared_manager
    peek, echo = tool_named(manager, "mcp__shared__peek"), tool_named(manager, "mcp__shared__echo")

    assert peek.is_concurrency_safe(None) and not echo.is_concurrency_safe(None)
