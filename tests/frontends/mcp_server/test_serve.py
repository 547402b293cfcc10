"""`agentcli mcp serve` as a process, driven by the official MCP client SDK: its tools
under the policy given at start, and whole agent turns against the fake Messages API."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters

from tests.fakeapi import reply, text, tool_use
from tests.support.cli import agentcli_env

pytestmark = pytest.mark.subprocess


def server(project: Path, fake_api: Any = None, *flags: str) -> Client:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "agentcli", "mcp", "serve", *flags],
        env=agentcli_env(fake_api),
        cwd=project,
    )
    return Client(params)


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def text_of(result: Any) -> str:
    return "".join(part.text for part in result.content if part.type == "text")


async def test_lists_agentclis_tools_and_the_agent(project):
    async with server(project) as client:
        listing = await client.list_tools()
    tools = {tool.name: tool for tool in listing.tools}
    assert {"Read", "Edit", "Write", "Bash", "Grep", "Glob", "WebFetch", "agentcli"} <= set(tools)
    assert "TodoWrite" not in tools and "WebSearch" not in tools
    assert tools["Read"].input_schema["required"] == ["file_path"]
    assert tools["Read"].annotations.read_only_hint is True
    assert tools["agentcli"].input_schema["required"] == ["prompt"]


async def test_reads_a_file_and_refuses_what_would_need_a_yes(project):
    (project / "notes.txt").write_text("alpha\nbeta\n")
    async with server(project) as client:
        read = await client.call_tool("Read", {"file_path": str(project / "notes.txt")})
        write = await client.call_tool(
            "Write", {"file_path": str(project / "new.txt"), "content": "x"}
        )
        bad = await client.call_tool("Read", {"path": "nope"})
    assert not read.is_error and "beta" in text_of(read)
    assert write.is_error and "non-interactive" in text_of(write)
    assert not (project / "new.txt").exists()
    assert bad.is_error and "file_path" in text_of(bad)


async def test_the_policy_given_at_start_applies(project):
    flags = ("--permission-mode", "acceptEdits", "--disallowedTools", "Bash(rm:*)")
    (project / "keep.txt").write_text("keep")
    async with server(project, None, *flags) as client:
        write = await client.call_tool(
            "Write", {"file_path": str(project / "new.txt"), "content": "x"}
        )
        rm = await client.call_tool("Bash", {"command": "rm keep.txt"})
    assert not write.is_error and (project / "new.txt").read_text() == "x"
    assert rm.is_error and (project / "keep.txt").exists()


async def test_runs_an_agent_turn_and_continues_its_session(fake_api, project):
    (project / "config.py").write_text("value = 1\n")
    edit = {
        "file_path": str(project / "config.py"),
        "old_string": "value = 1",
        "new_string": "value = 2",
    }
    fake_api.enqueue(reply(tool_use("Read", {"file_path": str(project / "config.py")})))
    fake_api.enqueue(reply(tool_use("Edit", edit)))
    fake_api.enqueue(reply(text("Changed value to 2.")))
    fake_api.enqueue(reply(text("It was 1.")))
    steps: list[str] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        steps.append(message or "")

    async with server(project, fake_api, "--permission-mode", "acceptEdits") as client:
        done = await client.call_tool(
            "agentcli", {"prompt": "set value to 2"}, progress_callback=on_progress
        )
        session = done.structured_content["session_id"]
        again = await client.call_tool(
            "agentcli", {"prompt": "what was it?", "session_id": session}
        )

    assert not done.is_error, text_of(done)
    assert text_of(done) == "Changed value to 2."
    assert (project / "config.py").read_text() == "value = 2\n"
    assert [step.split("(")[0] for step in steps] == ["Read", "Edit"]
    assert text_of(again) == "It was 1."
    assert again.structured_content["session_id"] == session
    last_request = fake_api.requests[-1].body["messages"]
    assert last_request[0]["content"][-1]["text"] == "set value to 2"  # the same conversation


async def test_a_cancelled_turn_stops_and_the_server_goes_on(fake_api, project):
    marker = project / "started"
    command = f"echo $$ > {marker}.tmp && mv {marker}.tmp {marker} && exec sleep 600"
    fake_api.enqueue(reply(tool_use("Bash", {"command": command})))
    fake_api.enqueue(reply(text("never")))
    async with server(project, fake_api, "--allowedTools", "Bash") as client:
        with anyio.move_on_after(30) as scope:  # a bound only: cancelled once the command runs
            async with anyio.create_task_group() as group:

                async def call() -> None:
                    await client.call_tool("agentcli", {"prompt": "run it"})

                group.start_soon(call)
                while not marker.exists():
                    await anyio.sleep(0.05)
                group.cancel_scope.cancel()
        assert not scope.cancelled_caught, "the command never started"
        pid = int(marker.read_text())
        with anyio.move_on_after(30):  # the command's group is killed with the turn
            while alive(pid):
                await anyio.sleep(0.05)
        assert not alive(pid), "the cancelled turn's command still runs"
        (project / "a.txt").write_text("still here")
        read = await client.call_tool("Read", {"file_path": str(project / "a.txt")})
    assert "still here" in text_of(read)


async def test_bad_agent_input_is_one_clear_error(project):
    async with server(project) as client:
        empty = await client.call_tool("agentcli", {"prompt": "  "})
        unknown = await client.call_tool("agentcli", {"prompt": "hi", "colour": "red"})
        nowhere = await client.call_tool("agentcli", {"prompt": "hi", "cwd": str(project / "no")})
    assert empty.is_error and "prompt" in text_of(empty)
    assert unknown.is_error and "colour" in text_of(unknown)
    assert nowhere.is_error and "not a folder" in text_of(nowhere)


async def test_serves_over_streamable_http_on_loopback(project):
    (project / "notes.txt").write_text("over http\n")
    process = subprocess.Popen(
        [sys.executable, "-m", "agentcli", "mcp", "serve", "--http"],
        cwd=project,
        env=agentcli_env(None),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stderr is not None
        line = process.stderr.readline()  # said once it listens
        assert line.startswith("MCP_URL=http://127.0.0.1:"), line
        async with Client(line.removeprefix("MCP_URL=").strip()) as client:
            names = {tool.name for tool in (await client.list_tools()).tools}
            read = await client.call_tool("Read", {"file_path": str(project / "notes.txt")})
    finally:
        process.terminate()
        process.wait(timeout=30)
    assert {"Read", "agentcli"} <= names
    assert "over http" in text_of(read)
