"""A subagent's permission question names it by its Task's description, so a person can
tell several subagents of one kind apart: in the engine's questions, in -p's refusal,
over ACP and to an SDK program."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

from acp import text_block
from claude_agent_sdk import ClaudeSDKClient, PermissionResultDeny, ToolPermissionContext

from agentcli.engine.events import ToolPermissionRequested
from agentcli.permissions.types import PermissionMode
from tests.agents.test_task_over_http import (
    GENERAL,
    GUARD_S,
    assert_all_requests_valid,
    close_providers,  # noqa: F401  (autouse: the providers engine_for opened are closed)
    engine_for,
    home,  # noqa: F401  (autouse: AGENTCLI_HOME in the test's folder)
    results_in,
    system_of,
    task,
)
from tests.engine.harness import answer_questions
from tests.fakeapi import reply, text, tool_use
from tests.frontends.acp.client import EditorClient, agent_in_process
from tests.frontends.sdk.support import sdk_options, until_result
from tests.integration.test_headless_cli import agentcli

FILES = ("a.txt", "b.txt", "c.txt")


def three_writers(body: dict[str, Any]) -> Any:
    """The parent starts three general-purpose subagents at once ("write a.txt", ...);
    each tries to write its file, and answers once refused."""
    results = results_in(body)
    if GENERAL not in system_of(body):
        if results:
            return reply(text("All three were refused."))
        return reply(
            *(
                tool_use("Task", task("general-purpose", f"Write {n}.", f"write {n}"), id=f"t{i}")
                for i, n in enumerate(FILES)
            )
        )
    if results:
        return reply(text("Refused."))
    (name,) = [n for n in FILES if n in json.dumps(body["messages"][0])]
    return reply(tool_use("Write", {"file_path": name, "content": "x\n"}))


def refusals(server) -> dict[str, str]:
    """What each subagent's model was told when its Write was refused, by its task."""
    told = {}
    for request in server.requests:
        body = request.body
        if GENERAL in system_of(body) and results_in(body):
            (name,) = [n for n in FILES if n in json.dumps(body["messages"][0])]
            told[name] = str(results_in(body)[0]["content"])
    return told


async def test_three_subagents_asking_at_once_are_each_named_by_their_task(fake_api, tmp_path):
    fake_api.default = three_writers
    engine = engine_for(fake_api, tmp_path, mode=PermissionMode.DEFAULT)
    asked = []

    async def turn() -> None:
        async for event in engine.submit_message("write all three"):
            if isinstance(event, ToolPermissionRequested):
                asked.append(event.question.request)
            answer_questions(event)

    await asyncio.wait_for(turn(), GUARD_S)

    assert_all_requests_valid(fake_api)
    assert sorted(r.asked_by.label() for r in asked) == [
        f"subagent 'write {name}' (general-purpose)" for name in FILES
    ]
    assert len({r.asked_by.agent_id for r in asked}) == 3
    for request in asked:  # each question is about its own subagent's call
        assert request.input["file_path"] in request.asked_by.description
    told = refusals(fake_api)
    assert sorted(told) == list(FILES)
    for name, said in told.items():
        assert f"asked by subagent 'write {name}' (general-purpose)" in said, said


def test_a_runs_refusal_names_the_subagent_that_asked(fake_api, tmp_path):
    fake_api.default = three_writers

    done = agentcli(["-p", "write all three", "--output-format", "stream-json"], tmp_path, fake_api)

    assert done.returncode == 0, done.stderr
    sub_results = [
        block["content"]
        for line in map(json.loads, done.stdout.splitlines())
        if line["type"] == "user" and line["parent_tool_use_id"] is not None
        for block in line["message"]["content"]
    ]
    named = sorted(re.search(r"subagent 'write (\w\.txt)'", str(c)).group(1) for c in sub_results)
    assert named == list(FILES)
    assert not any((tmp_path / name).exists() for name in FILES)


def one_writer(body: dict[str, Any]) -> Any:
    if GENERAL in system_of(body):
        if results_in(body):
            return reply(text("Refused."))
        return reply(tool_use("Write", {"file_path": "b.txt", "content": "x\n"}))
    if results_in(body):
        return reply(text("Done."))
    return reply(tool_use("Task", task("general-purpose", "Write b.txt.", "write b"), id="t0"))


async def test_an_editors_question_names_the_subagent(fake_api, tmp_path):
    fake_api.default = one_writer
    client = EditorClient(["reject_once"])
    async with agent_in_process(client, tmp_path, fake_api) as conn:
        session = await conn.new_session(cwd=str(tmp_path), mcp_servers=[])
        await conn.prompt(session_id=session.session_id, prompt=[text_block("write b")])

    ((tool_call, _options),) = client.questions
    assert "(asked by subagent 'write b' (general-purpose))" in tool_call.title
    assert not (tmp_path / "b.txt").exists()


async def test_an_sdk_programs_question_carries_the_subagent(fake_api, tmp_path: Path):
    fake_api.default = one_writer
    seen: list[ToolPermissionContext] = []

    async def can_use_tool(
        name: str, tool_input: dict[str, Any], context: ToolPermissionContext
    ) -> PermissionResultDeny:
        seen.append(context)
        return PermissionResultDeny(message="no")

    async with ClaudeSDKClient(sdk_options(fake_api, tmp_path, can_use_tool=can_use_tool)) as sdk:
        await sdk.query("write b")
        await until_result(sdk.receive_response())

    (context,) = seen
    assert context.agent_id and re.fullmatch(r"[0-9a-f]{16}", context.agent_id)
    assert "(asked by subagent 'write b' (general-purpose))" in (context.title or "")
