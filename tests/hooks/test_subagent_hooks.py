"""SubagentStart / SubagentStop and a subagent's tool hooks, against the fake Messages API
with real sub-engines and real hook commands."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from agentcli.agents.definitions import load_agents
from agentcli.engine.events import EndReason, TurnEnded
from agentcli.tools.read import ReadTool
from tests.agents.test_task_over_http import (
    GENERAL,
    GUARD_S,
    PARENT,
    close_providers,  # noqa: F401  (autouse: the providers opened are closed)
    home,  # noqa: F401  (autouse: AGENTCLI_HOME in the test's folder)
    results_in,
    run,
    system_of,
    task,
)
from tests.engine.harness import make_engine
from tests.fakeapi import reply, text, tool_use
from tests.hooks.helpers import hook_script, payloads

CONTEXT = "The staging database is read-only."


def _script(body: dict[str, Any]) -> Any:
    """The parent starts one general-purpose subagent; it reads a.txt, answers, is sent
    on once by SubagentStop, and answers again."""
    system = system_of(body)
    if PARENT in system:
        if not results_in(body):
            return reply(tool_use("Task", task("general-purpose", "Check a.txt."), id="toolu_t"))
        return reply(text("The subagent checked it."))
    assert GENERAL in system
    said = json.dumps(body["messages"])
    if "run the tests too" in said:
        return reply(text("Tests ran."))
    if results_in(body):
        return reply(text("a.txt is fine."))
    return reply(tool_use("Read", {"file_path": "a.txt"}, id="toolu_r"))


def _hooks(folder) -> dict[str, Any]:
    start_out = {
        "hookSpecificOutput": {"hookEventName": "SubagentStart", "additionalContext": CONTEXT}
    }
    stop_body = (
        "if not payload['stop_hook_active']:\n"
        "    print(json.dumps({'decision': 'block', 'reason': 'run the tests too'}))"
    )
    commands = {
        "SubagentStart": hook_script(folder, "start", f"print(json.dumps({start_out!r}))"),
        "SubagentStop": hook_script(folder, "stop", stop_body),
        "PreToolUse": hook_script(folder, "pre"),
        "Stop": hook_script(folder, "main_stop"),
    }
    matchers = {"SubagentStart": "general-purpose", "SubagentStop": "general-purpose"}
    return {
        event: [{"matcher": matchers.get(event, ""), "hooks": [{"type": "command", "command": c}]}]
        for event, c in commands.items()
    }


async def test_subagent_start_and_stop_hooks_with_their_fields_and_decisions(fake_api, tmp_path):
    from agentcli.providers.anthropic import AnthropicProvider
    from agentcli.providers.retry import RetryPolicy

    (tmp_path / "a.txt").write_text("fine\n")
    hooks_dir = tmp_path / "hooks"
    hooks_dir.mkdir()
    fake_api.default = _script
    provider = AnthropicProvider(
        api_key="test-key", base_url=fake_api.base_url, retry=RetryPolicy(max_retries=0)
    )
    engine = make_engine(
        provider,
        [ReadTool()],
        tmp_path,
        model="claude-sonnet-5-5",
        system=[{"type": "text", "text": PARENT}],
        agents=load_agents(tmp_path),
        hooks=_hooks(hooks_dir),
        session=True,
    )

    try:
        events = await asyncio.wait_for(run(engine, "check a.txt"), GUARD_S)
    finally:
        await provider.aclose()

    assert isinstance(events[-1], TurnEnded) and events[-1].reason is EndReason.COMPLETED
    (start,) = payloads(hooks_dir, "start")
    assert start["hook_event_name"] == "SubagentStart"
    assert start["agent_type"] == "general-purpose" and start["agent_id"]
    assert start["session_id"] == engine.session_id
    subagent = [r.body for r in fake_api.requests if GENERAL in system_of(r.body)]
    assert CONTEXT in json.dumps(subagent[0]["messages"][0])  # it went with the task

    first, second = payloads(hooks_dir, "stop")
    for stop in (first, second):
        assert stop["hook_event_name"] == "SubagentStop"
        assert stop["agent_id"] == start["agent_id"] and stop["agent_type"] == "general-purpose"
        assert stop["agent_transcript_path"].endswith(f"{start['agent_id']}.jsonl")
    assert (first["stop_hook_active"], second["stop_hook_active"]) == (False, True)
    assert first["last_assistant_message"] == "a.txt is fine."
    assert second["last_assistant_message"] == "Tests ran."
    assert "run the tests too" in json.dumps(subagent[-1]["messages"])  # the block sent it on

    by_tool = {p["tool_name"]: p for p in payloads(hooks_dir, "pre")}
    assert "agent_id" not in by_tool["Task"]  # the parent's own call
    read = by_tool["Read"]  # the subagent's Read names the subagent
    assert read["agent_id"] == start["agent_id"] and read["agent_type"] == "general-purpose"
    (main_stop,) = payloads(hooks_dir, "main_stop")  # Stop is the main agent's alone
    assert main_stop["last_assistant_message"] == "The subagent checked it."
    assert "agent_id" not in main_stop
