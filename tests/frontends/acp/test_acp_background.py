"""Background shells over ACP: the same tools, run by the session's engine (never in
the editor's terminal, which would wait for the end); starting one is asked about as a
foreground command is, reading and stopping it are not; none outlives the connection."""

from __future__ import annotations

import asyncio
import os
import re
from pathlib import Path

from acp import text_block

from tests.fakeapi import reply, text, tool_use
from tests.frontends.acp.client import EditorClient, agent_in_process
from tests.tools.test_bash import _is_gone


def _last_result(body: dict) -> str:
    (block,) = [b for b in body["messages"][-1]["content"] if b["type"] == "tool_result"]
    content = block["content"]
    return "".join(p.get("text", "") for p in content) if isinstance(content, list) else content


def _with_id(name: str, pattern: str, **more):
    def make(body: dict):
        (task_id,) = re.findall(pattern, _last_result(body))[:1]
        return reply(tool_use(name, {"task_id": task_id, **more}))

    return make


async def test_a_background_command_over_acp(fake_api, project, tmp_path: Path):
    pipe = tmp_path / "pid.fifo"
    os.mkfifo(pipe)
    command = f"echo $$ > {pipe}; sleep 600"
    fake_api.enqueue(reply(tool_use("Bash", {"command": command, "run_in_background": True})))
    fake_api.enqueue(_with_id("TaskOutput", r"with ID: (\w+)\.", block=False))
    fake_api.enqueue(reply(text("Left it running.")))
    client = EditorClient(["allow_once"], terminal=True)
    async with agent_in_process(client, project, fake_api) as conn:
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        done = await conn.prompt(session_id=session.session_id, prompt=[text_block("Serve")])
        assert done.stop_reason == "end_turn"
        pid = int(await asyncio.wait_for(asyncio.to_thread(pipe.read_text), 60))
        assert not _is_gone(pid)

    assert len(client.questions) == 1  # the Bash call; TaskOutput asks nothing
    assert client.terminals == {}  # run by the engine, not in the editor's terminal
    read = _last_result(fake_api.requests[2].body)
    assert "<status>running</status>" in read
    assert _is_gone(pid)  # the connection's end ended the session's tasks
