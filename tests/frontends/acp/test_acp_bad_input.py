"""What `agentcli --acp` answers to a client that gets the protocol wrong.

These speak raw JSON lines, since the library's client would not send most
of them.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from acp import RequestError, text_block

from tests.frontends.acp.client import EditorClient, agent_in_process

# How long an answer may take: the agent process starts and loads the SDK (seconds of
# CPU) before `session/new` answers, and on two cores shared with other work that is
# many seconds; the wait ends as soon as the line comes.
ANSWER_WAIT_S = 90


class RawClient:
    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.next_id = 0

    async def send_line(self, line: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(line.encode() + b"\n")
        await self.process.stdin.drain()

    async def call(self, method: str, params: Any = None) -> dict[str, Any]:
        self.next_id += 1
        message = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        if params is not None:
            message["params"] = params
        await self.send_line(json.dumps(message))
        return await self.answer_to(self.next_id)

    async def answer_to(self, request_id: int | None) -> dict[str, Any]:
        assert self.process.stdout is not None
        while True:
            line = await asyncio.wait_for(self.process.stdout.readline(), ANSWER_WAIT_S)
            assert line, "the agent closed its output"
            message = json.loads(line)
            if "method" not in message and message.get("id") == request_id:
                return message


@asynccontextmanager
async def raw_agent(cwd: Path, *, key: bool = True) -> AsyncIterator[RawClient]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
    if key:
        env["ANTHROPIC_API_KEY"] = "test-key"
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "agentcli",
        "--acp",
        cwd=cwd,
        env=env,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
    )
    try:
        yield RawClient(process)
    finally:
        assert process.stdin is not None
        process.stdin.close()
        await asyncio.wait_for(process.wait(), ANSWER_WAIT_S)


async def test_an_unknown_method_is_a_method_not_found_error(tmp_path):
    async with raw_agent(tmp_path) as client:
        answer = await client.call("session/fly", {"sessionId": "x"})
        still = await client.call("initialize", {"protocolVersion": 1})

    assert answer["error"]["code"] == -32601
    assert "session/fly" in answer["error"]["message"]
    assert still["result"]["protocolVersion"] == 1  # the connection goes on


async def test_malformed_json_and_bad_params_get_error_answers(tmp_path):
    async with raw_agent(tmp_path) as client:
        await client.send_line("{not json")
        parse = await client.answer_to(None)
        params = await client.call("initialize", {"protocolVersion": "one"})
        folder = await client.call("session/new", {"cwd": "relative/path", "mcpServers": []})

    assert parse["error"]["code"] == -32700
    assert params["error"]["code"] == -32602
    assert folder["error"]["code"] == -32602 and "absolute" in folder["error"]["message"]


async def test_without_an_api_key_a_new_session_says_how_to_set_one(tmp_path):
    async with raw_agent(tmp_path, key=False) as client:
        await client.call("initialize", {"protocolVersion": 1})
        answer = await client.call("session/new", {"cwd": str(tmp_path), "mcpServers": []})

    assert answer["error"]["code"] == -32000
    assert "ANTHROPIC_API_KEY" in answer["error"]["message"]


async def test_the_process_ends_cleanly_when_the_client_closes_stdin(tmp_path):
    async with raw_agent(tmp_path) as client:
        await client.call("initialize", {"protocolVersion": 1})
    assert client.process.returncode == 0


async def test_a_prompt_on_an_unknown_session_is_refused(fake_api, tmp_path):
    client = EditorClient()
    async with agent_in_process(client, tmp_path, fake_api) as conn:
        with pytest.raises(RequestError) as refused:
            await conn.prompt(session_id="no-such-session", prompt=[text_block("Hi")])
        with pytest.raises(RequestError) as unknown:
            await conn.load_session(cwd=str(tmp_path), session_id="nope", mcp_servers=[])

    assert refused.value.code == -32602 and "no-such-session" in str(refused.value)
    assert unknown.value.code == -32002 and "nope" in str(unknown.value)
    assert fake_api.requests == []


def test_acp_and_print_mode_do_not_mix(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "agentcli", "--acp", "-p", "hi"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert "--acp" in done.stderr and done.stdout == ""


async def test_a_message_over_the_size_limit_is_refused_and_the_connection_goes_on(tmp_path):
    from agentcli.frontends.acp.rpc import MAX_LINE_BYTES

    async with raw_agent(tmp_path) as client:
        await client.send_line(
            '{"jsonrpc": "2.0", "method": "x", "params": "' + "a" * MAX_LINE_BYTES
        )
        refused = await client.answer_to(None)
        still = await client.call("initialize", {"protocolVersion": 1})

    assert refused["error"]["code"] == -32600 and "limit" in refused["error"]["message"]
    assert still["result"]["protocolVersion"] == 1
