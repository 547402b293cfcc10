"""WebFetch and WebSearch in a real engine talking to the fake Messages API.

The small-model path of WebFetch (a long page is answered by a side request),
domain rules deciding before anything is fetched, and WebSearch's server
blocks: offered only where they may run, streamed, kept in the conversation
and the transcript, and sent back unchanged, with no tool_result of ours.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentcli.core.pricing import cost_usd
from agentcli.core.usage import Usage
from agentcli.engine.events import ToolCallFinished, ToolPermissionRequested
from agentcli.engine.query_engine import QueryEngine
from agentcli.permissions.types import PermissionMode
from agentcli.providers.anthropic import AnthropicProvider
from agentcli.providers.retry import RetryPolicy
from agentcli.session.loader import load_session
from agentcli.session.resume import resolve_resumed
from agentcli.tools.display import WebFetchDisplay
from agentcli.tools.model_access import DEFAULT_SMALL_MODEL
from agentcli.tools.web.fetch_tool import SMALL_MODEL_SYSTEM, UNTRUSTED, WebFetchTool
from agentcli.tools.web.search_tool import WebSearchTool
from agentcli.wiring.composition import finish_session
from tests.engine.harness import make_engine, of_type, run_turn
from tests.engine.scripted import Response, ScriptedProvider
from tests.fakeapi import http_error, reply, text, tool_use, web_search
from tests.fakeapi.sse import search_blocks
from tests.web.site import Site

_providers: list[AnthropicProvider] = []


@pytest.fixture(autouse=True)
async def close_providers():
    yield
    while _providers:
        await _providers.pop().aclose()


def engine_for(server, root: Path, tools, **options) -> QueryEngine:
    provider = AnthropicProvider(
        api_key="test-key", base_url=server.base_url, retry=RetryPolicy(max_retries=0)
    )
    _providers.append(provider)
    return make_engine(provider, tools, root, model="claude-sonnet-5-5", **options)


def assert_all_requests_valid(server) -> None:
    rejected = [(r.status, r.error) for r in server.requests if r.status == 400]
    assert rejected == [], f"the server rejected requests: {rejected}"


def tool_result_text(request_body: dict) -> str:
    last = request_body["messages"][-1]["content"]
    results = [b for b in last if b["type"] == "tool_result"]
    assert len(results) == 1
    content = results[0]["content"]
    return content if isinstance(content, str) else "".join(b["text"] for b in content)


# -- WebFetch -----------------------------------------------------------------------


async def test_a_long_page_is_answered_by_the_small_model(fake_api, site: Site, tmp_path):
    paragraphs = "".join(f"<p>Paragraph {i} of the changelog.</p>" for i in range(600))
    url = site.page("/changelog", f"<h1>Changelog</h1>{paragraphs}<p>Version 4.2 is out.</p>")
    fake_api.enqueue(
        reply(tool_use("WebFetch", {"url": url, "prompt": "Which version is out?"})),
        reply(text("Version 4.2.")),  # the small model, asked by the tool
        reply(text("The page says 4.2.")),
    )
    engine = engine_for(fake_api, tmp_path, [WebFetchTool()])

    events = await run_turn(engine, "what is new?")

    assert_all_requests_valid(fake_api)
    main, side, after = (r.body for r in fake_api.requests)
    assert side["model"] == DEFAULT_SMALL_MODEL
    assert "tools" not in side
    assert side["system"] == [{"type": "text", "text": SMALL_MODEL_SYSTEM}]
    asked = side["messages"][0]["content"][0]["text"]
    assert "Paragraph 599 of the changelog." in asked and "Version 4.2 is out." in asked
    assert asked.endswith("The question: Which version is out?")
    result = tool_result_text(after)
    assert "Version 4.2." in result and DEFAULT_SMALL_MODEL in result and UNTRUSTED in result
    assert "Paragraph 599" not in result  # the page itself stays out of the conversation
    (finished,) = of_type(events, ToolCallFinished)
    assert isinstance(finished.display, WebFetchDisplay)
    assert finished.display.answered_by == DEFAULT_SMALL_MODEL
    assert main["model"] == after["model"] == "claude-sonnet-5-5"


async def test_the_small_models_tokens_and_cost_count_in_the_sessions_totals(
    fake_api, site: Site, tmp_path
):
    """/cost and -p's total_cost_usd add up every request the session made, the
    tool's side request to the small model too, at the small model's price."""
    url = site.page("/long", "".join(f"<p>Line {i} of a long page.</p>" for i in range(900)))
    side_usage = {"input_tokens": 40_000, "output_tokens": 1_000}
    fake_api.enqueue(
        reply(
            tool_use("WebFetch", {"url": url, "prompt": "Summarise"}),
            usage={"input_tokens": 100, "output_tokens": 10},
        ),
        reply(text("A long page."), usage=side_usage),  # the small model, asked by the tool
        reply(text("Done."), usage={"input_tokens": 200, "output_tokens": 20}),
    )
    engine = engine_for(fake_api, tmp_path, [WebFetchTool()])

    await run_turn(engine, "summarise it")

    assert engine.usage.input_tokens == 100 + 40_000 + 200
    assert engine.usage.output_tokens == 10 + 1_000 + 20
    side_cost = cost_usd(DEFAULT_SMALL_MODEL, Usage(40_000, 1_000))
    main_cost = cost_usd("claude-sonnet-5-5", Usage(300, 30))
    assert side_cost and main_cost
    assert engine.cost_usd == pytest.approx(side_cost + main_cost)


async def test_a_domain_rule_allows_without_asking(fake_api, site: Site, tmp_path):
    url = site.page("/hello", "<p>hello from the site</p>")
    fake_api.enqueue(reply(tool_use("WebFetch", {"url": url, "prompt": "?"})), "Done.")
    engine = engine_for(
        fake_api,
        tmp_path,
        [WebFetchTool()],
        mode=PermissionMode.DEFAULT,
        allow=["WebFetch(domain:127.0.0.1)"],
    )

    events = await run_turn(engine, "read it")

    assert of_type(events, ToolPermissionRequested) == []
    assert "hello from the site" in tool_result_text(fake_api.requests[1].body)
    assert site.hits["/hello"] == 1


@pytest.mark.parametrize(
    ("rules", "asked"),
    [
        ({"deny": ["WebFetch(domain:127.0.0.1)"], "allow": ["WebFetch"]}, False),
        ({"allow": ["WebFetch(domain:example.com)"]}, True),  # another domain: asked, refused
    ],
    ids=["denied", "not-allowed"],
)
async def test_a_fetch_not_allowed_never_reaches_the_site(fake_api, site, tmp_path, rules, asked):
    url = site.page("/secret", "<p>private</p>")
    fake_api.enqueue(reply(tool_use("WebFetch", {"url": url, "prompt": "?"})), "Done.")
    engine = engine_for(fake_api, tmp_path, [WebFetchTool()], mode=PermissionMode.DEFAULT, **rules)

    events = await run_turn(engine, "read it")  # questions are refused, as in -p

    questions = of_type(events, ToolPermissionRequested)
    assert len(questions) == int(asked)
    if asked:
        assert questions[0].question.request.rules == ("WebFetch(domain:127.0.0.1)",)
    assert site.hits["/secret"] == 0
    result = tool_result_text(fake_api.requests[1].body)
    assert "private" not in result and "denied" in result


# -- WebSearch ----------------------------------------------------------------------

SEARCH = web_search(
    "agentcli release notes",
    [("Release notes", "https://example.com/notes"), ("Blog", "https://blog.example.com/")],
)


async def test_web_search_blocks_round_trip_and_survive_a_resume(fake_api, tmp_path):
    fake_api.enqueue(
        reply(SEARCH, text("Version 4.2 came out this week.")),
        "Nothing else.",
        "Still 4.2.",
    )
    engine = engine_for(fake_api, tmp_path, [WebSearchTool()], session=True)

    events = await run_turn(engine, "what is the latest release?")
    await run_turn(engine, "anything else?")

    assert_all_requests_valid(fake_api)
    first, second = (r.body for r in fake_api.requests)
    assert first["tools"] == [{"type": "web_search_20250305", "name": "web_search", "max_uses": 5}]
    served = list(search_blocks(SEARCH))
    replayed = second["messages"][1]["content"]
    assert [_without_none(b) for b in replayed[:2]] == [_without_none(b) for b in served]
    assert not any(b["type"] == "tool_result" for m in second["messages"] for b in m["content"])
    assert of_type(events, ToolCallFinished) == []  # nothing ran here
    assert engine.messages[1]["content"][0]["type"] == "server_tool_use"

    finish_session(engine)
    saved = load_session(engine.transcript.path)
    assert saved.messages == engine.messages
    resumed = engine_for(
        fake_api, tmp_path, [WebSearchTool()], session=True,
        resumed=resolve_resumed(tmp_path, continue_latest=True),
    )  # fmt: skip
    await run_turn(resumed, "and now?")

    assert_all_requests_valid(fake_api)
    third = fake_api.requests[2].body
    assert [_without_none(b) for b in third["messages"][1]["content"][:2]] == [
        _without_none(b) for b in served
    ]


def _without_none(block: dict) -> dict:
    """The SDK leaves out fields the API sent as null (a result's `page_age`)."""
    return json.loads(
        json.dumps(block), object_hook=lambda d: {k: v for k, v in d.items() if v is not None}
    )


async def test_web_search_is_offered_only_where_it_may_run(fake_api, tmp_path):
    fake_api.enqueue("No search.")
    denied = engine_for(fake_api, tmp_path, [WebSearchTool()], deny=["WebSearch"])
    await run_turn(denied, "search something")
    assert "tools" not in fake_api.requests[0].body

    elsewhere = ScriptedProvider(Response([{"type": "text", "text": "ok"}]))
    other = make_engine(elsewhere, [WebSearchTool(), WebFetchTool()], tmp_path)
    await run_turn(other, "search something")
    assert [t["name"] for t in elsewhere.requests[0].tools] == ["WebFetch"]


async def test_the_fake_api_refuses_a_search_the_request_did_not_offer(fake_api, tmp_path):
    fake_api.enqueue(reply(SEARCH, text("found")))
    engine = engine_for(fake_api, tmp_path, [], deny=["WebSearch"])

    await run_turn(engine, "search")

    assert fake_api.requests[0].status == 500
    assert len(fake_api.errors) == 1 and "does not offer the web_search tool" in fake_api.errors[0]
    fake_api.errors.clear()


async def test_a_paused_turn_is_sent_back_so_the_model_goes_on(fake_api, tmp_path):
    fake_api.enqueue(
        reply(SEARCH, stop_reason="pause_turn"),
        reply(text("Version 4.2.")),
    )
    engine = engine_for(fake_api, tmp_path, [WebSearchTool()])

    events = await run_turn(engine, "latest release?")

    assert_all_requests_valid(fake_api)
    assert len(fake_api.requests) == 2
    sent = fake_api.requests[1].body["messages"]
    assert sent[-1]["role"] == "assistant"
    assert [b["type"] for b in sent[-1]["content"]] == ["server_tool_use", "web_search_tool_result"]
    assert events[-1].reason == "completed" and events[-1].turns == 2
    assert engine.messages[-1]["content"] == [{"type": "text", "text": "Version 4.2."}]


async def test_a_failing_small_model_fails_the_call_with_the_reason(fake_api, site, tmp_path):
    url = site.page("/long", "<p>" + "filler text " * 2000 + "</p>")
    fake_api.enqueue(
        reply(tool_use("WebFetch", {"url": url, "prompt": "?"})),
        http_error(400, "model: claude-haiku-4-5 is not available"),
        "Sorry.",
    )
    engine = engine_for(fake_api, tmp_path, [WebFetchTool()])

    events = await run_turn(engine, "read it")

    (finished,) = of_type(events, ToolCallFinished)
    assert finished.is_error
    result = tool_result_text(fake_api.requests[2].body)
    assert "The model that reads long pages failed" in result
    assert "claude-haiku-4-5 is not available" in result
