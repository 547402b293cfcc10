"""The seed's end-to-end scenarios, run for every provider over real HTTP.

The same scripted conversations go to the fake Messages API (the Anthropic
provider) and to the fake OpenAI-compatible server through the provider
registry (`local/qwen3-coder`, for Chat Completions and for Responses). Each
fake validates every request the way a strict server would, so "every tool
call answered" and "an interrupt leaves a valid history" are checked on the
wire for each API, not assumed.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from agentcli.config.provider_settings import ProviderSettings
from agentcli.engine.compaction import SUMMARY_REQUEST, Compactor
from agentcli.engine.events import (
    AssistantMessage,
    EndReason,
    Event,
    TextDelta,
    ToolCallRunning,
)
from agentcli.engine.query_engine import QueryEngine
from agentcli.permissions.types import PermissionMode
from agentcli.providers.anthropic import AnthropicProvider
from agentcli.providers.base import Provider
from agentcli.providers.registry import ProviderRouter
from agentcli.providers.retry import RetryPolicy
from agentcli.providers.tuning import ApiTuning
from agentcli.session.resume import resolve_resumed
from agentcli.tools.edit import EditTool
from agentcli.tools.read import ReadTool
from agentcli.wiring.composition import finish_session
from tests.engine.harness import make_engine, run_turn
from tests.engine.scripted import Probe, make_tool
from tests.fakeapi import FakeAnthropic, hang, reply, text, tool_use
from tests.fakeopenai import CHAT_PATH, FakeOpenAI

RETRY = RetryPolicy(max_retries=3, base_delay_s=0.0)


@dataclass
class Backend:
    """One provider and its fake server, with how to read its requests."""

    kind: str  # anthropic | openai-chat | openai-responses
    server: FakeAnthropic
    model: str
    provider: Provider | None = None

    def connect(self) -> Provider:
        if self.kind == "anthropic":
            self.provider = AnthropicProvider(
                api_key="test-key", base_url=self.server.base_url, retry=RETRY
            )
        else:
            settings = ProviderSettings(type=self.kind, baseUrl=self.server.base_url)
            self.provider = ProviderRouter({"local": settings}, ApiTuning(retry=RETRY))
        return self.provider

    def engine(self, root: Path, *, tools=(), session=False, compactor=None, resumed=None):
        return make_engine(
            self.connect(),
            [ReadTool(), EditTool(), *tools],
            root,
            mode=PermissionMode.ACCEPT_EDITS,
            model=self.model,
            system=[{"type": "text", "text": "You are a test agent."}],
            session=session,
            compactor=compactor,
            resumed=resumed,
        )

    def results(self, index: int) -> list[tuple[str, str]]:
        """(call id, result text) of every tool result in request `index`, in order."""
        body = self.server.requests[index].body
        if self.kind == "anthropic":
            return [
                (b["tool_use_id"], _text(b["content"]))
                for m in body["messages"]
                if isinstance(m["content"], list)
                for b in m["content"]
                if b.get("type") == "tool_result"
            ]
        if self.kind == "openai-chat":
            return [
                (m["tool_call_id"], m["content"]) for m in body["messages"] if m["role"] == "tool"
            ]
        return [
            (i["call_id"], i["output"])
            for i in body["input"]
            if i.get("type") == "function_call_output"
        ]

    def replayed_inputs(self, index: int) -> list[Any]:
        """The input of every tool call replayed in request `index`, parsed as the
        server parses it (OpenAI's arguments are JSON text)."""
        body = self.server.requests[index].body
        if self.kind == "anthropic":
            return [
                b["input"]
                for m in body["messages"]
                if isinstance(m["content"], list)
                for b in m["content"]
                if b.get("type") == "tool_use"
            ]
        if self.kind == "openai-chat":
            calls = [c for m in body["messages"] for c in m.get("tool_calls") or []]
            return [json.loads(c["function"]["arguments"]) for c in calls]
        items = [i for i in body["input"] if i.get("type") == "function_call"]
        return [json.loads(i["arguments"]) for i in items]

    def sent(self, index: int) -> str:
        return json.dumps(self.server.requests[index].body)

    def assert_all_valid(self) -> None:
        refused = [(r.status, r.error) for r in self.server.requests if r.status == 400]
        assert refused == [], f"the server refused requests: {refused}"


def _text(content: Any) -> str:
    return content if isinstance(content, str) else "".join(b.get("text", "") for b in content)


@pytest.fixture(params=["anthropic", "openai-chat", "openai-responses"])
async def backend(request) -> Iterator[Backend]:
    kind = request.param
    server = FakeAnthropic() if kind == "anthropic" else FakeOpenAI()
    model = "claude-sonnet-5-5" if kind == "anthropic" else "local/qwen3-coder"
    with server:
        made = Backend(kind, server, model)
        yield made
        if made.provider is not None:
            await made.provider.aclose()  # type: ignore[attr-defined]
    assert not server.errors, server.errors


async def run(engine: QueryEngine, prompt: str) -> list[Event]:
    return await run_turn(engine, prompt)


async def test_seed_change_value_to_2(backend, tmp_path):
    config = tmp_path / "config.py"
    config.write_text("name = 'demo'\nvalue = 1\n")
    edit = {"file_path": str(config), "old_string": "value = 1", "new_string": "value = 2"}
    backend.server.enqueue(
        reply(text("Let me read it."), tool_use("Read", {"file_path": str(config)})),
        reply(tool_use("Edit", edit)),
        reply(text("Changed value to 2 in config.py.")),
    )
    engine = backend.engine(tmp_path)

    events = await run(engine, "Change value to 2")

    assert config.read_text() == "name = 'demo'\nvalue = 2\n"
    assert events[-1].reason is EndReason.COMPLETED and events[-1].turns == 3
    streamed = "".join(e.text for e in events if isinstance(e, TextDelta))
    assert streamed.endswith("Changed value to 2 in config.py.")
    ((_, read_result),) = backend.results(1)
    assert "value = 1" in read_result
    backend.assert_all_valid()
    assert engine.usage.output_tokens > 0


async def test_parallel_calls_are_all_answered_in_call_order(backend, tmp_path):
    paths = []
    for name in "abc":
        (tmp_path / f"{name}.txt").write_text(f"content of {name}\n")
        paths.append(tmp_path / f"{name}.txt")
    calls = [tool_use("Read", {"file_path": str(p)}) for p in paths]
    backend.server.enqueue(reply(*calls), reply(text("Read all three.")))

    events = await run(backend.engine(tmp_path), "read a, b and c")

    assert events[-1].reason is EndReason.COMPLETED
    results = backend.results(1)
    assert [call_id for call_id, _ in results] == [c.id for c in calls]
    assert all(f"content of {n}" in r for (_, r), n in zip(results, "abc", strict=True))
    backend.assert_all_valid()


async def test_bad_calls_get_error_results(backend, tmp_path):
    backend.server.enqueue(
        reply(tool_use("Fly", {"to": "moon"}), tool_use("Read", {"path": "x"})),
        reply(text("I see.")),
    )

    events = await run(backend.engine(tmp_path), "go")

    (_, unknown), (_, bad_input) = backend.results(1)
    assert "No such tool: Fly" in unknown
    assert "file_path: Field required" in bad_input and "path: unexpected field" in bad_input
    assert events[-1].reason is EndReason.COMPLETED
    backend.assert_all_valid()


MALFORMED = (
    '{"file_path": "a.txt", "limit": 1',  # cut off
    '["a.txt"]',  # JSON, not an object
    '{"file_path": "a.txt", "limit": NaN}',  # not JSON, though Python reads it
)


async def test_malformed_arguments_get_an_error_result_and_a_history_every_server_takes(
    backend, tmp_path
):
    (tmp_path / "a.txt").write_text("alpha\n")
    bad = [tool_use("Read", raw_input=raw) for raw in MALFORMED]
    good = tool_use("Read", {"file_path": str(tmp_path / "a.txt")})
    backend.server.enqueue(reply(*bad, good), reply(text("Done.")))

    events = await run(backend.engine(tmp_path), "read a")

    assert events[-1].reason is EndReason.COMPLETED
    backend.assert_all_valid()  # the strict servers took the history back
    cut, array, nan, fine = (result for _, result in backend.results(1))
    assert "not valid JSON" in cut and "cut off" in cut and MALFORMED[0] in cut
    assert "must be a JSON object, not an array" in array and MALFORMED[1] in array
    assert "NaN is not JSON" in nan
    assert all("Nothing was run" in result for result in (cut, array, nan))
    assert "alpha" in fine
    replayed = backend.replayed_inputs(1)
    assert all(isinstance(value, dict) for value in replayed)
    assert replayed[3] == {"file_path": str(tmp_path / "a.txt")}
    if backend.kind != "anthropic":
        assert replayed[:3] == [{}, {}, {}]


async def test_interrupt_mid_stream_then_a_valid_next_request(backend, tmp_path):
    stuck = hang(reply(text("This answer will be interrupted halfway")), after_events=4)
    backend.server.enqueue(stuck, reply(text("Fresh answer.")))
    engine = backend.engine(tmp_path)

    events = []
    async for event in engine.submit_message("tell me a story"):
        events.append(event)
        if isinstance(event, TextDelta):
            engine.interrupt()

    assert events[-1].reason is EndReason.ABORTED_STREAMING
    await asyncio.to_thread(backend.server.requests[0].finished.wait, 5)
    assert backend.server.requests[0].outcome == "client_disconnected"
    events = await run(engine, "something else")
    assert events[-1].reason is EndReason.COMPLETED
    backend.assert_all_valid()
    assert "something else" in backend.sent(1)


async def test_interrupt_mid_tool_then_a_valid_next_request(backend, tmp_path):
    probe = Probe()
    waiter = make_tool("Wait", probe, safe=True, behaviour="wait")
    backend.server.enqueue(reply(text("Waiting."), tool_use("Wait", {})), reply(text("Done.")))
    engine = backend.engine(tmp_path, tools=[waiter])

    running = answered = False
    async for event in engine.submit_message("wait for it"):
        running = running or isinstance(event, ToolCallRunning)
        answered = answered or isinstance(event, AssistantMessage)
        if running and answered:
            engine.interrupt()
        last = event

    assert last.reason is EndReason.ABORTED_TOOLS and probe.running == 0
    events = await run(engine, "never mind")
    assert events[-1].reason is EndReason.COMPLETED
    backend.assert_all_valid()
    ((_, result),) = backend.results(1)
    assert "Interrupted" in result


async def test_resume_sends_the_whole_earlier_conversation(backend, tmp_path):
    (tmp_path / "a.txt").write_text("alpha\n")
    backend.server.enqueue(
        reply(tool_use("Read", {"file_path": str(tmp_path / "a.txt")})),
        reply(text("It says alpha.")),
        reply(text("Still alpha.")),
    )
    first = backend.engine(tmp_path, session=True)
    await run(first, "what is in a.txt?")
    finish_session(first)

    resumed = resolve_resumed(tmp_path, continue_latest=True)
    second = backend.engine(tmp_path, session=True, resumed=resumed)
    events = await run(second, "and now?")

    assert events[-1].reason is EndReason.COMPLETED
    sent = backend.sent(2)
    assert "what is in a.txt?" in sent and "It says alpha." in sent and "and now?" in sent
    assert [r for _, r in backend.results(2)] == [r for _, r in backend.results(1)]
    backend.assert_all_valid()


async def test_compaction_summarises_and_the_next_request_is_valid(backend, tmp_path):
    def answer(body: dict[str, Any]) -> Any:
        summary = json.dumps(SUMMARY_REQUEST[:80])[1:-1] in json.dumps(body)
        return reply(text("SUMMARY OF EARLIER WORK" if summary else "ok"))

    backend.server.default = answer
    compactor = Compactor(window=2000, threshold=0.5, keep_tokens=400)
    engine = backend.engine(tmp_path, session=True, compactor=compactor)
    long = "details " * 150

    for prompt in ("P1 ", "P2 ", "P3 ", "P4 "):
        events = await run(engine, prompt + long)
        assert events[-1].reason is EndReason.COMPLETED

    assert compactor.compactions >= 1
    last = backend.sent(len(backend.server.requests) - 1)
    assert "SUMMARY OF EARLIER WORK" in last
    # The first prompt is carried verbatim (cut to the 100-token prompt budget of a
    # 2,000-token window); P2 is left to the summary.
    assert "P1 details" in last and "P2 " not in last
    backend.assert_all_valid()


def test_the_chat_fake_refuses_an_anthropic_field_like_a_strict_server():
    import httpx

    with FakeOpenAI() as server:
        body = {
            "model": "m",
            "messages": [
                {"role": "user", "content": [{"type": "text", "text": "hi", "cache_control": {}}]}
            ],
        }
        answer = httpx.post(server.base_url.removesuffix("/v1") + CHAT_PATH, json=body)
    assert answer.status_code == 400
    assert (
        "Unrecognized request argument supplied: messages[0].content[0].cache_control"
        in answer.text
    )
