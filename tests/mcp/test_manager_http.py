"""The manager against the test server over streamable HTTP and SSE, on loopback."""

from __future__ import annotations

import asyncio
import json

from tests.mcp.support import (
    eventually,
    http,
    http_server,
    run_tool,
    sse,
    state_of,
    tool_named,
    until,
)


async def test_a_streamable_http_server_connects_and_answers_with_every_kind_of_content(
    mcp_manager, shared_http_url
):
    manager = mcp_manager(http("remote", shared_http_url, {"X-Test": "yes"}))
    await manager.start()
    await manager.wait_ready()

    assert state_of(manager, "remote").state == "connected"
    result = await run_tool(tool_named(manager, "mcp__remote__picture"), {})
    await manager.close()

    text, image, structured = result.content
    assert text["text"] == "A red dot." and image["type"] == "image"
    assert json.loads(structured["text"])["color"] == "red"


async def test_over_http_a_changed_tool_list_is_seen(mcp_manager, shared_http_url):
    manager = mcp_manager(http("remote", shared_http_url))
    await manager.start()
    await manager.wait_ready()

    await run_tool(tool_named(manager, "mcp__remote__grow"), {})

    # The change travels on its own HTTP stream: it comes, not necessarily first.
    await until(manager, lambda: "mcp__remote__extra" in {t.name for t in manager.tools()})
    await manager.close()


async def test_over_http_a_cancelled_call_is_cancelled_on_the_server(
    mcp_manager, shared_http_url, tmp_path
):
    mark = tmp_path / "mark"
    manager = mcp_manager(http("remote", shared_http_url))
    await manager.start()
    await manager.wait_ready()
    call = asyncio.create_task(
        run_tool(tool_named(manager, "mcp__remote__slow"), {"seconds": 60, "mark": str(mark)})
    )
    await eventually(mark.exists)

    call.cancel()

    await asyncio.gather(call, return_exceptions=True)
    await eventually(lambda: mark.read_text() == "cancelled")
    await manager.close()


async def test_an_sse_server_connects_and_answers(mcp_manager):
    with http_server("--sse") as url:
        manager = mcp_manager(sse("old", url))
        await manager.start()
        await manager.wait_ready()

        result = await run_tool(tool_named(manager, "mcp__old__echo"), {"text": "over sse"})
        await manager.close()

    assert state_of(manager, "old").transport == "sse"
    assert result.content == [{"type": "text", "text": "over sse"}]


async def test_nothing_listening_is_a_failed_server(mcp_manager):
    manager = mcp_manager(http("nowhere", "http://127.0.0.1:9/mcp"))
    await manager.start()

    await manager.wait_ready()

    status = state_of(manager, "nowhere")
    assert status.state == "failed" and status.error
