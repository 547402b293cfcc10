"""The Task tool against the fake Messages API: real provider, real SSE, real sub-engines.

The fake server routes each request by its system prompt (the parent's, or
the subagent's own), since the subagents' requests may arrive in any order.
Every request is validated as the real API would.
"""

from __future__ import annotations

import asyncio
import json
import threading
from pathlib import Path
from typing import Any

import pytest

from agentcli.agents.definitions import load_agents
from agentcli.agents.display import SubagentDisplay
from agentcli.commands.session_commands import cost_text
from agentcli.core.pricing import cost_usd
from agentcli.engine.events import (
    AssistantMessage,
    EndReason,
    Event,
    Notice,
    SubagentEvent,
    ToolCallFinished,
    ToolPermissionRequested,
    TurnEnded,
)
from agentcli.engine.query_engine import QueryEngine
from agentcli.permissions.gate import headless_answer
from agentcli.permissions.types import PermissionMode
from agentcli.providers.anthropic import AnthropicProvider
from agentcli.providers.retry import RetryPolicy
from agentcli.tools.edit import EditTool
from agentcli.tools.glob import GlobTool
from agentcli.tools.grep import GrepTool
from agentcli.tools.read import ReadTool
from agentcli.tools.write import WriteTool
from tests.engine.harness import answer_questions, make_engine
from tests.fakeapi import hang, reply, text, tool_use

PARENT = "You are the parent test agent."
EXPLORE = "read-only exploration subagent"
GENERAL = "You are a subagent of agentcli"
GUARD_S = 30  # a bound on a hang, not a timing assertion

_providers: list[AnthropicProvider] = []


@pytest.fixture(autouse=True)
async def close_providers():
    yield
    while _providers:
        await _providers.pop().aclose()


@pytest.fixture(autouse=True)
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("AGENTCLI_HOME", str(tmp_path / "home"))


def engine_for(server, root: Path, *, mode=PermissionMode.BYPASS, session=False) -> QueryEngine:
    provider = AnthropicProvider(
        api_key="test-key", base_url=server.base_url, retry=RetryPolicy(max_retries=0)
    )
    _providers.append(provider)
    return make_engine(
        provider,
        [ReadTool(), EditTool(), WriteTool(), GlobTool(), GrepTool()],
        root,
        mode=mode,
        model="claude-sonnet-5-5",
        system=[{"type": "text", "text": PARENT}],
        agents=load_agents(root),
        session=session,
    )


async def run(engine: QueryEngine, prompt: str, events: list[Event] | None = None) -> list[Event]:
    seen = [] if events is None else events
    async for event in engine.submit_message(prompt):
        answer_questions(event)
        seen.append(event)
    return seen


def system_of(body: dict[str, Any]) -> str:
    system = body.get("system") or []
    return system if isinstance(system, str) else "".join(b.get("text", "") for b in system)


def tool_names(body: dict[str, Any]) -> list[str]:
    return [tool["name"] for tool in body.get("tools") or []]


def results_in(body: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        block
        for message in body["messages"]
        if isinstance(message["content"], list)
        for block in message["content"]
        if block.get("type") == "tool_result"
    ]


def user(said: str) -> dict[str, Any]:
    return {"role": "user", "content": [{"type": "text", "text": said}]}


def task(agent: str, prompt: str, description: str = "look around") -> dict[str, Any]:
    return {"description": description, "prompt": prompt, "subagent_type": agent}


def assert_all_requests_valid(server) -> None:
    rejected = [(r.status, r.error) for r in server.requests if r.status == 400]
    assert rejected == [], f"the server rejected requests: {rejected}"


class BothAtOnce:
    """The parent asks for two Task calls; the first subagent request to arrive is held
    until the second arrives, so the run finishes only if both are in flight at once."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.held: Any = None

    def __call__(self, body: dict[str, Any]) -> Any:
        system = system_of(body)
        if PARENT in system:
            if not results_in(body):
                return reply(
                    tool_use("Task", task("Explore", "Where is A?"), id="toolu_a"),
                    tool_use("Task", task("general-purpose", "Fix B."), id="toolu_b"),
                )
            return reply(text("Both subagents answered."))
        answer = reply(text("A is in a.py." if EXPLORE in system else "B is fixed."))
        with self.lock:
            if self.held is None:
                self.held = hang(answer, after_events=2)
                return self.held
        self.held.release()
        return answer


async def test_two_task_calls_run_two_subagents_at_once_and_the_parent_gets_both(
    fake_api, tmp_path
):
    fake_api.default = BothAtOnce()
    engine = engine_for(fake_api, tmp_path)

    events = await asyncio.wait_for(run(engine, "look at A and B"), GUARD_S)

    assert isinstance(events[-1], TurnEnded) and events[-1].reason is EndReason.COMPLETED
    assert_all_requests_valid(fake_api)
    bodies = [r.body for r in fake_api.requests]
    assert len(bodies) == 4
    parent = [b for b in bodies if PARENT in system_of(b)]
    explore = [b for b in bodies if EXPLORE in system_of(b)]
    general = [b for b in bodies if GENERAL in system_of(b)]
    assert (len(parent), len(explore), len(general)) == (2, 1, 1)
    assert tool_names(explore[0]) == ["Read", "Glob", "Grep"]  # the parent's order
    assert tool_names(general[0]) == ["Read", "Edit", "Write", "Glob", "Grep"]  # no Task
    assert explore[0]["messages"] == [user("Where is A?")]  # a fresh conversation each
    assert general[0]["messages"] == [user("Fix B.")]
    answers = {r["tool_use_id"]: r["content"] for r in results_in(parent[1])}
    assert answers == {"toolu_a": "A is in a.py.", "toolu_b": "B is fixed."}
    wrapped = [e for e in events if isinstance(e, SubagentEvent)]
    assert {(e.parent_tool_use_id, e.agent_type) for e in wrapped} == {
        ("toolu_a", "Explore"),
        ("toolu_b", "general-purpose"),
    }
    # Every answer's tokens count in the parent's totals, the subagents' included.
    answered = [e for e in events if isinstance(e, AssistantMessage)]
    answered += [e.event for e in wrapped if isinstance(e.event, AssistantMessage)]
    assert len(answered) == 4
    assert engine.usage.output_tokens == sum(e.usage.output_tokens for e in answered)
    assert engine.usage.input_tokens == sum(e.usage.input_tokens for e in answered)
    assert engine.cost_usd == pytest.approx(sum(cost_usd(e.model, e.usage) for e in answered))
    assert f"${engine.cost_usd:.4f}" in cost_text(engine)  # what /cost shows


async def test_esc_during_a_subagent_stops_it_and_the_next_prompt_goes_on(fake_api, tmp_path):
    held = hang(reply(text("never finished")), after_events=2)

    def route(body: dict[str, Any]) -> Any:
        if GENERAL in system_of(body):
            return held
        if not results_in(body):
            return reply(tool_use("Task", task("general-purpose", "Work long."), id="toolu_t"))
        return reply(text("Fine, stopped."))

    fake_api.default = route
    engine = engine_for(fake_api, tmp_path)
    events: list[Event] = []
    turn = asyncio.ensure_future(run(engine, "start it", events))
    await asyncio.to_thread(held.reached.wait, GUARD_S)
    engine.interrupt()
    await asyncio.wait_for(turn, GUARD_S)

    assert events[-1].reason is EndReason.ABORTED_TOOLS
    finished = [e for e in events if isinstance(e, ToolCallFinished)]
    assert [(e.tool_use_id, e.status) for e in finished] == [("toolu_t", "interrupted")]
    sub_request = next(r for r in fake_api.requests if GENERAL in system_of(r.body))
    await asyncio.to_thread(sub_request.finished.wait, GUARD_S)
    assert sub_request.outcome == "client_disconnected"

    await asyncio.wait_for(run(engine, "go on"), GUARD_S)
    assert_all_requests_valid(fake_api)
    last = fake_api.requests[-1].body
    assert [r["tool_use_id"] for r in results_in(last)] == ["toolu_t"]


async def test_a_custom_agent_file_gets_only_its_tools_its_prompt_and_its_model(fake_api, tmp_path):
    agents = tmp_path / ".agentcli" / "agents"
    agents.mkdir(parents=True)
    (agents / "reader.md").write_text(
        "---\nname: reader\ndescription: Reads one file.\ntools: Read, MultiEdit\n"
        "model: haiku\n---\n"
        "You only read files for the reader test.\n"
    )

    def route(body: dict[str, Any]) -> Any:
        if "reader test" in system_of(body):
            if not results_in(body):
                edit = {"file_path": "a.py", "old_string": "1", "new_string": "2"}
                return reply(tool_use("Edit", edit, id="toolu_edit"))
            return reply(text("I could not edit."))
        if not results_in(body):
            return reply(tool_use("Task", task("reader", "Change a.py."), id="toolu_r"))
        return reply(text("Done."))

    fake_api.default = route
    (tmp_path / "a.py").write_text("x = 1\n")
    engine = engine_for(fake_api, tmp_path)
    parent_tools = {t["name"]: t for t in engine.visible_tools().schemas()}
    assert (
        "- reader: Reads one file. (Tools: Read, MultiEdit)" in parent_tools["Task"]["description"]
    )

    events = await asyncio.wait_for(run(engine, "use the reader"), GUARD_S)

    assert_all_requests_valid(fake_api)
    sub = [r.body for r in fake_api.requests if "reader test" in system_of(r.body)]
    assert [tool_names(b) for b in sub] == [["Read"], ["Read"]]
    assert {b["model"] for b in sub} == {"claude-haiku-4-5"}
    refused = results_in(sub[1])[0]
    assert refused["is_error"] and "No such tool: Edit" in refused["content"]
    assert (tmp_path / "a.py").read_text() == "x = 1\n"
    said = [e.text for e in events if isinstance(e, Notice)]
    assert said == ["The reader subagent runs without MultiEdit: not available in this session"]


async def test_a_subagents_permission_question_names_it_and_goes_through_the_gate(
    fake_api, tmp_path
):
    def route(body: dict[str, Any]) -> Any:
        if GENERAL in system_of(body):
            if not results_in(body):
                write = {"file_path": "b.py", "content": "y = 2\n"}
                return reply(tool_use("Write", write, id="toolu_write"))
            return reply(text("Not allowed to write."))
        if not results_in(body):
            return reply(tool_use("Task", task("general-purpose", "Write b.py."), id="toolu_g"))
        return reply(text("Done."))

    fake_api.default = route
    engine = engine_for(fake_api, tmp_path, mode=PermissionMode.DEFAULT)

    events = await asyncio.wait_for(run(engine, "edit through a subagent"), GUARD_S)

    questions = [e.question for e in events if isinstance(e, ToolPermissionRequested)]
    asked = [(q.request.asked_by.agent_type, q.request.tool_name) for q in questions]
    assert asked == [("general-purpose", "Write")]
    assert not (tmp_path / "b.py").exists()  # refused, as headless answers
    assert_all_requests_valid(fake_api)


async def test_a_subagents_conversation_is_saved_beside_the_session_and_linked(fake_api, tmp_path):
    def route(body: dict[str, Any]) -> Any:
        if EXPLORE in system_of(body):
            return reply(text("Found it."))
        if not results_in(body):
            return reply(tool_use("Task", task("Explore", "Find it."), id="toolu_e"))
        return reply(text("Done."))

    fake_api.default = route
    engine = engine_for(fake_api, tmp_path, session=True)
    events = await asyncio.wait_for(run(engine, "find it"), GUARD_S)
    engine.transcript.close()

    display = next(e.display for e in events if isinstance(e, ToolCallFinished))
    assert isinstance(display, SubagentDisplay)
    assert (display.agent_type, display.status, display.tool_uses) == ("Explore", "completed", 0)
    saved = Path(display.transcript)
    assert saved.parent == engine.transcript.path.with_suffix("") / "subagents"
    lines = [json.loads(line) for line in saved.read_text().splitlines()]
    said = [line["message"] for line in lines if line.get("type") in ("user", "assistant")]
    assert [m["role"] for m in said] == ["user", "assistant"]
    assert said[-1]["content"][0]["text"] == "Found it."
    parent_lines = engine.transcript.path.read_text()
    assert str(saved) in parent_lines  # the parent's record of the call links to it


async def test_two_subagents_questions_come_one_at_a_time(fake_api, tmp_path):
    def route(body: dict[str, Any]) -> Any:
        system, results = system_of(body), results_in(body)
        if PARENT in system:
            if not results:
                return reply(
                    tool_use("Task", task("general-purpose", "Write a.txt."), id="toolu_1"),
                    tool_use("Task", task("general-purpose", "Write b.txt."), id="toolu_2"),
                )
            return reply(text("Both refused."))
        if results:
            return reply(text("Refused."))
        name = "a.txt" if "a.txt" in json.dumps(body["messages"]) else "b.txt"
        return reply(tool_use("Write", {"file_path": name, "content": "x\n"}))

    fake_api.default = route
    engine = engine_for(fake_api, tmp_path, mode=PermissionMode.DEFAULT)
    asked: list[Any] = []
    open_when_asked: list[int] = []
    main_lock_held: list[bool] = []

    async def refuse(request):
        # The session's one question lock is held: nobody else, the main conversation
        # included, can ask while a subagent's question is open.
        main_lock_held.append(engine.gate.ask_lock.locked())
        return headless_answer(request)

    events = []
    async for event in engine.submit_message("write both"):
        if isinstance(event, ToolPermissionRequested):
            open_when_asked.append(sum(q.is_open for q in asked))
            asked.append(event.question)
        answer_questions(event, refuse)
        events.append(event)

    assert [q.request.asked_by.agent_type for q in asked] == ["general-purpose"] * 2
    assert open_when_asked == [0, 0]  # the second was asked only once the first was answered
    assert main_lock_held == [True, True]
    assert_all_requests_valid(fake_api)
    assert not (tmp_path / "a.txt").exists() and not (tmp_path / "b.txt").exists()
