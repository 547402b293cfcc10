"""The Agent SDK's remaining options, with the real `claude-agent-sdk` driving `agentcli`.

In-process SDK MCP servers (`create_sdk_mcp_server`): their tools are offered as
`mcp__<name>__<tool>` and every call reaches the program as an `mcp_message`
control request. `agents={...}` (sent in `initialize`): usable by Task with their
prompt and tools, listed in init's `agents`. `setting_sources`: which settings
layers, and with them which project commands, load.
"""

from __future__ import annotations

from typing import Any

from claude_agent_sdk import (
    SystemMessage,
    create_sdk_mcp_server,
    query,
    tool,
)

from tests.fakeapi import reply, text, tool_use
from tests.frontends.sdk.support import result_of, sdk_options, tool_results


def adder(calls: list[dict[str, Any]]) -> Any:
    @tool("add", "Add two numbers", {"a": int, "b": int})
    async def add(args: dict[str, Any]) -> dict[str, Any]:
        calls.append(args)
        return {"content": [{"type": "text", "text": f"sum is {args['a'] + args['b']}"}]}

    return create_sdk_mcp_server(name="calc", version="1.0.0", tools=[add])


async def test_an_in_process_sdk_server_is_called_through_mcp_message(fake_api, project):
    calls: list[dict[str, Any]] = []
    fake_api.enqueue(reply(tool_use("mcp__calc__add", {"a": 2, "b": 3})))
    fake_api.enqueue(reply(text("It is 5.")))
    options = sdk_options(
        fake_api,
        project,
        mcp_servers={"calc": adder(calls)},
        allowed_tools=["mcp__calc__add"],
    )

    messages = [m async for m in query(prompt="add 2 and 3", options=options)]

    init = messages[0]
    assert isinstance(init, SystemMessage)
    assert "mcp__calc__add" in init.data["tools"]
    assert {"name": "calc", "status": "connected"} in init.data["mcp_servers"]
    first = fake_api.requests[0].body
    assert "mcp__calc__add" in [t["name"] for t in first["tools"]]
    assert calls == [{"a": 2, "b": 3}]  # the program's own function ran
    results = tool_results(fake_api.requests[1].body)
    assert results[0]["content"][0]["text"] == "sum is 5" and not results[0].get("is_error")
    assert result_of(messages).result == "It is 5."
