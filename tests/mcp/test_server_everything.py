"""The manager against the reference server of the MCP project (a handshake-era server)."""

from __future__ import annotations

import json

import pytest

from tests.mcp.everything import everything
from tests.mcp.support import run_tool, state_of, tool_named

pytestmark = pytest.mark.usefixtures("needs_everything")


async def test_it_connects_and_its_tools_are_named_for_the_api(mcp_manager):
    manager = mcp_manager(everything())
    await manager.start()
    await manager.wait_ready()

    status = state_of(manager, "everything")
    assert status.state == "connected", status
    names = {tool.name for tool in manager.tools()}
    assert {"mcp__everything__echo", "mcp__everything__get-tiny-image"} <= names
    schema = tool_named(manager, "mcp__everything__echo").schema()["input_schema"]
    assert schema["required"] == ["message"]
    assert "Starting default (STDIO) server" in status.stderr_tail


async def test_its_results_map_to_text_images_structured_content_and_resources(mcp_manager):
    manager = mcp_manager(everything())
    await manager.start()
    await manager.wait_ready()

    echo = await run_tool(tool_named(manager, "mcp__everything__echo"), {"message": "hi"})
    image = await run_tool(tool_named(manager, "mcp__everything__get-tiny-image"), {})
    weather = await run_tool(
        tool_named(manager, "mcp__everything__get-structured-content"), {"location": "Chicago"}
    )
    reference = await run_tool(tool_named(manager, "mcp__everything__get-resource-reference"), {})
    links = await run_tool(tool_named(manager, "mcp__everything__get-resource-links"), {"count": 2})

    assert "hi" in echo.content[0]["text"]
    assert [b["type"] for b in image.content].count("image") == 1
    assert json.loads(weather.content[0]["text"]).keys() >= {"temperature", "conditions"}
    assert len(weather.content) == 1  # its structured content is already said as JSON text
    assert any(
        b["text"].startswith("[Resource from everything at demo://") for b in reference.content
    )
    assert sum(b["text"].startswith("[Resource link: ") for b in links.content) == 2


async def test_its_resources_and_prompts_are_there(mcp_manager):
    manager = mcp_manager(everything())
    await manager.start()
    await manager.wait_ready()

    resources = manager.resources()
    first = await manager.read_resource("everything", resources[0].uri)
    prompt = await manager.get_prompt("everything", "simple-prompt")

    assert resources and first and first[0]["type"] in ("text", "image")
    assert prompt and prompt[0]["role"] == "user"
    assert "simple-prompt" in {p.name for p in manager.prompts()}
