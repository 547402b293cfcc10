"""The Agent SDK's remaining options, with the real `claude-agent-sdk` driving `agentcli`.

In-process SDK MCP servers (`create_sdk_mcp_server`): their tools are offered as
`mcp__<name>__<tool>` and every call reaches the program as an `mcp_message`
control request. `agents={...}` (sent in `initialize`): usable by Task with their
prompt and tools, listed in init's `agents`. `setting_sources`: which settings
layers, and with them which project commands, load.
"""

from __future__ import annotations

import json
import subprocess
from typing import Any

from claude_agent_sdk import (
    AgentDefinition,
    ClaudeSDKClient,
    SystemMessage,
    create_sdk_mcp_server,
    query,
    tool,
)

from tests.fakeapi import reply, text, tool_use
from tests.frontends.sdk import raw
from tests.frontends.sdk.support import AGENTCLI, result_of, sdk_options, tool_results
from tests.plugins.support import make_plugin
from tests.support.cli import agentcli_env, start_agentcli


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


async def test_agents_from_initialize_are_started_by_task_with_their_prompt_and_tools(
    fake_api, project
):
    reviewer = AgentDefinition(
        description="Reviews code for mistakes",
        prompt="You are the strict reviewer. Quote the line you judge.",
        tools=["Read", "Grep"],
        model="haiku",
    )
    task = {"subagent_type": "reviewer", "description": "review", "prompt": "Review config.py"}
    fake_api.enqueue(reply(tool_use("Task", task)))
    fake_api.enqueue(reply(text("value = 1 looks right.")))  # the subagent's answer
    fake_api.enqueue(reply(text("The reviewer is happy.")))
    options = sdk_options(fake_api, project, agents={"reviewer": reviewer})

    messages = [m async for m in query(prompt="get it reviewed", options=options)]

    init = messages[0]
    assert isinstance(init, SystemMessage) and "reviewer" in init.data["agents"]
    assert "Explore" in init.data["agents"]  # beside the others
    sub = fake_api.requests[1].body
    system = " ".join(block["text"] for block in sub["system"])
    assert "You are the strict reviewer. Quote the line you judge." in system
    assert sorted(t["name"] for t in sub["tools"]) == ["Grep", "Read"]
    assert sub["model"] == "claude-haiku-4-5"
    assert sub["messages"][0]["content"][0]["text"] == "Review config.py"
    assert result_of(messages).result == "The reviewer is happy."


async def test_an_agent_without_a_prompt_fails_initialize_naming_it(fake_api, project):
    broken = AgentDefinition(description="no prompt", prompt="   ")
    options = sdk_options(fake_api, project, agents={"empty": broken})

    try:
        async with ClaudeSDKClient(options):
            pass
    except Exception as exc:  # the SDK raises the initialize error it was given
        assert "the agent 'empty' has no prompt" in str(exc)
    else:
        raise AssertionError("initialize should have failed")
    assert fake_api.requests == []


def command_file(project: Any, name: str, body: str) -> None:
    folder = project / ".claude" / "commands"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.md").write_text(f"---\ndescription: {body}\n---\n{body}\n")


async def test_setting_sources_decide_whether_the_project_commands_load(fake_api, project):
    command_file(project, "deploy", "Ship it")
    fake_api.enqueue(reply(text("one")))
    fake_api.enqueue(reply(text("two")))

    every = [m async for m in query(prompt="hi", options=sdk_options(fake_api, project))]
    user_only = sdk_options(fake_api, project, setting_sources=["user"])
    only_user = [m async for m in query(prompt="hi", options=user_only)]

    assert "deploy" in every[0].data["slash_commands"]
    assert "deploy" not in only_user[0].data["slash_commands"]
    assert "help" in only_user[0].data["slash_commands"]  # the built-ins stay


async def test_plugins_local_loads_the_plugins_command_agent_and_server(fake_api, project):
    kit = make_plugin(project.parent / "kit")
    fake_api.enqueue(reply(text("ok")))
    options = sdk_options(fake_api, project, plugins=[{"type": "local", "path": str(kit)}])

    messages = [m async for m in query(prompt="hi", options=options)]

    init = messages[0]
    assert init.data["plugins"] == [{"name": "kit", "path": str(kit.resolve())}]
    assert "kit:hello" in init.data["slash_commands"]
    assert "kit:helper" in init.data["agents"]
    # its server waits for the person's yes, as a project's .mcp.json server does
    assert {"name": "plugin:kit:echo", "status": "disabled"} in init.data["mcp_servers"]


SDK_SERVER = json.dumps({"mcpServers": {"calc": {"type": "sdk", "name": "calc"}}})


def next_line(process: subprocess.Popen[str]) -> dict[str, Any]:
    assert process.stdout is not None
    line = process.stdout.readline()
    assert line, "agentcli ended its stdout"
    return json.loads(line)


def send(process: subprocess.Popen[str], message: dict[str, Any]) -> None:
    assert process.stdin is not None
    process.stdin.write(json.dumps(message) + "\n")
    process.stdin.flush()


def test_a_program_that_refuses_its_servers_messages_fails_that_server_only(fake_api, project):
    """An `mcp_message` answered with an error (an SDK without that server): the server is
    failed, `initialize` still succeeds, and the turn runs without its tools."""
    fake_api.enqueue(reply(text("No calculator today.")))
    process = raw.start(fake_api, project, "--mcp-config", SDK_SERVER)
    send(process, raw.control("init_1", subtype="initialize", hooks=None))
    asked = next_line(process)
    assert asked["type"] == "control_request"
    assert asked["request"]["subtype"] == "mcp_message"
    assert asked["request"]["server_name"] == "calc"
    assert asked["request"]["message"]["method"] in ("server/discover", "initialize")
    send(
        process,
        {
            "type": "control_response",
            "response": {
                "subtype": "error",
                "request_id": asked["request_id"],
                "error": "Server 'calc' not found",
            },
        },
    )
    answered = next_line(process)
    assert answered["type"] == "control_response"
    assert answered["response"]["subtype"] == "success", answered
    send(process, raw.user("add 2 and 3"))
    out, err = process.communicate(timeout=60)
    lines = [answered, *(json.loads(line) for line in out.splitlines())]
    init = next(line for line in lines if line.get("subtype") == "init")
    assert {"name": "calc", "status": "failed"} in init["mcp_servers"]
    assert not any(name.startswith("mcp__calc__") for name in init["tools"])
    assert lines[-1]["result"] == "No calculator today." and process.returncode == 0, err


def test_stdin_ending_while_a_server_waits_for_the_program_ends_the_run_at_once(fake_api, project):
    """The program leaves in the middle of its server's handshake: nothing waits out the
    MCP start-up timeout (set far beyond the test's own)."""
    process = start_agentcli(
        [*raw.SDK_FLAGS, "--mcp-config", SDK_SERVER],
        project,
        agentcli_env(fake_api, MCP_TIMEOUT="600000"),
        stdin=subprocess.PIPE,
        command=[str(AGENTCLI)],
    )
    send(process, raw.control("init_1", subtype="initialize", hooks=None))
    assert next_line(process)["request"]["subtype"] == "mcp_message"

    _out, err = process.communicate("", timeout=30)  # stdin closed, nothing answered

    assert process.returncode == 0, err
    assert fake_api.requests == []
