"""Both OpenAI providers through LiteLLM's real proxy, to the strict fake behind it.

The fake refuses what vLLM and llama.cpp refuse (replayed arguments that are
not one JSON object, `$ref` in tool schemas); LiteLLM parses every request and
re-streams every answer, ending Chat Completions streams with its own
`data: [DONE]`, and refuses on its own a Responses request whose replayed
`function_call` arguments it cannot parse. A conversation whose model wrote malformed arguments must
reach its end through it, for Chat Completions and for Responses.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from agentcli.engine.events import EndReason
from agentcli.permissions.types import PermissionMode
from agentcli.providers.openai_chat import OpenAIChatProvider
from agentcli.providers.openai_responses import OpenAIResponsesProvider
from agentcli.providers.retry import RetryPolicy
from agentcli.tools.read import ReadTool
from agentcli.tools.todo_write import TodoWriteTool
from tests.engine.harness import make_engine, run_turn
from tests.fakeapi import reply, text, tool_use
from tests.fakeopenai import MODELS_PATH, FakeOpenAI
from tests.litellm.proxy import MODEL, Proxy, litellm_proxy, needs_litellm

KINDS = {"chat": OpenAIChatProvider, "responses": OpenAIResponsesProvider}

# The first test's set-up waits for the proxy for up to proxy.START_TIMEOUT_S (180 s):
# pytest's 120 s ended it first on a loaded machine (an error, not the proxy's own words).
pytestmark = pytest.mark.timeout(300)


@pytest.fixture(scope="module")
def through(tmp_path_factory) -> Iterator[tuple[Proxy, FakeOpenAI]]:
    """One proxy for the module (it takes seconds to start), in front of one fake."""
    needs_litellm()
    with FakeOpenAI() as fake, litellm_proxy(fake.base_url, tmp_path_factory.mktemp("ll")) as proxy:
        yield proxy, fake


@pytest.fixture
def fake(through) -> Iterator[FakeOpenAI]:
    """The fake behind the proxy, fresh for each test (nothing queued, nothing recorded)."""
    _, server = through
    server.reset()
    yield server
    assert not server.errors, server.errors


@pytest.fixture(params=sorted(KINDS))
async def provider(request, through):
    proxy, _ = through
    made = KINDS[request.param](
        base_url=proxy.base_url,
        api_key=proxy.key,
        provider_name="litellm",
        retry=RetryPolicy(max_retries=0),
    )
    yield made
    await made.aclose()


async def test_a_conversation_with_malformed_arguments_reaches_its_end(
    provider, fake, tmp_path: Path
):
    (tmp_path / "a.txt").write_text("alpha\n")
    cut_off = tool_use("Read", raw_input='{"file_path": "a.txt", "limit": 1')
    not_an_object = tool_use("Read", raw_input='["a.txt"]')
    good = tool_use("Read", {"file_path": str(tmp_path / "a.txt")})
    fake.enqueue(reply(cut_off, not_an_object, good), reply(text("Read it.")))
    engine = make_engine(
        provider,
        [ReadTool(), TodoWriteTool()],  # TodoWrite: a schema with $defs
        tmp_path,
        mode=PermissionMode.ACCEPT_EDITS,
        model=MODEL,
    )

    events = await run_turn(engine, "read a.txt")

    assert events[-1].reason is EndReason.COMPLETED, events[-1]
    # The proxy may ask the upstream for its model list at any moment (a task of its
    # own); that says nothing about the conversation.
    sent = [r for r in fake.requests if r.path != MODELS_PATH]
    assert [r.status for r in sent] == [200, 200], [r.error for r in sent]
    body = json.dumps(sent[1].body)
    assert "not valid JSON" in body and "must be a JSON object, not an array" in body
    assert "alpha" in body


async def test_a_plain_answer_streams_to_its_end(provider, fake, tmp_path: Path):
    """Chat Completions through LiteLLM ends with its `data: [DONE]`; Responses with
    `response.completed`."""
    fake.enqueue(reply(text("Hello through the proxy.")))
    engine = make_engine(provider, [], tmp_path, model=MODEL)

    events = await run_turn(engine, "hi")

    assert events[-1].reason is EndReason.COMPLETED, events[-1]
    assert engine.messages[-1]["content"][0]["text"] == "Hello through the proxy."
