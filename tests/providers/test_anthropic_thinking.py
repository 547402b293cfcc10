"""--effort / --max-thinking-tokens on the wire to the Messages API.

Each request goes to the fake Messages API, which refuses what the real service
refuses (tests/fakeapi/thinking_rules.py, its own table of models): a budget on a model
that only thinks adaptively, a budget not below `max_tokens`, an effort level the
model does not take. So each body asserted here is also one the API accepts.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest

from agentcli.core.abort import AbortSignal
from agentcli.core.model_catalog import (
    ADAPTIVE_4_6,
    ADAPTIVE_ONLY,
    BUDGET_AND_EFFORT,
    BUDGET_ONLY,
    NO_THINKING,
    claude_thinking,
)
from agentcli.core.reasoning import EFFORT_LEVELS, Effort, Reasoning
from agentcli.providers.anthropic import AnthropicProvider
from agentcli.providers.base import ModelError, ModelRequest
from agentcli.providers.retry import RetryPolicy
from tests.fakeapi import reply, text


@pytest.fixture
async def provider(fake_api) -> AsyncIterator[AnthropicProvider]:
    made = AnthropicProvider(base_url=fake_api.base_url, api_key="k", retry=RetryPolicy(0))
    yield made
    await made.aclose()


async def sent_body(
    fake_api, provider: AnthropicProvider, model: str, reasoning: Reasoning | None, **kw: Any
) -> dict[str, Any]:
    """The body the fake API received (and accepted) for one request."""
    fake_api.enqueue(reply(text("ok")))
    request = ModelRequest(
        model=model,
        messages=[{"role": "user", "content": "hi"}],
        max_tokens=kw.pop("max_tokens", 32000),
        reasoning=reasoning,
        **kw,
    )
    _ = [event async for event in provider.stream(request, AbortSignal())]
    # The client may have read the whole stream before the server's thread marks it done.
    assert await asyncio.to_thread(fake_api.requests[-1].finished.wait, 30)
    assert fake_api.requests[-1].outcome == "complete"
    return fake_api.requests[-1].body


def thinking_part(body: dict[str, Any]) -> dict[str, Any]:
    return {key: body[key] for key in ("thinking", "output_config") if key in body}


@pytest.mark.parametrize(
    ("model", "support"),
    [
        ("claude-sonnet-5-5", ADAPTIVE_ONLY),
        ("claude-opus-5", ADAPTIVE_ONLY),
        ("claude-haiku-5-5[1m]", ADAPTIVE_ONLY),
        ("claude-opus-4-7", ADAPTIVE_ONLY),
        ("claude-mythos-preview", ADAPTIVE_ONLY),
        ("claude-fable-5-1", ADAPTIVE_ONLY),
        ("claude-opus-4-6", ADAPTIVE_4_6),
        ("claude-sonnet-4-6[1m]", ADAPTIVE_4_6),
        ("claude-opus-4-5-20251101", BUDGET_AND_EFFORT),
        ("claude-sonnet-4-5-20250929", BUDGET_ONLY),
        ("claude-haiku-4-5", BUDGET_ONLY),
        ("claude-opus-4-1-20250805", BUDGET_ONLY),
        ("claude-3-7-sonnet-20250219", BUDGET_ONLY),
        ("claude-3-5-haiku-20241022", NO_THINKING),
        ("claude-3-haiku-20240307", NO_THINKING),
    ],
)
def test_the_catalog_knows_how_each_model_thinks(model, support):
    assert claude_thinking(model) == support


@pytest.mark.parametrize("effort", EFFORT_LEVELS)
async def test_an_adaptive_model_gets_adaptive_thinking_and_the_effort(fake_api, provider, effort):
    body = await sent_body(fake_api, provider, "claude-sonnet-5-5", Reasoning(effort=effort))

    assert thinking_part(body) == {
        "thinking": {"type": "adaptive"},
        "output_config": {"effort": effort},
    }
    assert "anthropic-beta" not in fake_api.requests[-1].headers  # effort is GA


@pytest.mark.parametrize(
    ("effort", "sent"),
    [("low", "low"), ("medium", "medium"), ("high", "high"), ("xhigh", "high"), ("max", "max")],
)
async def test_a_4_6_model_gets_the_nearest_level_it_takes(fake_api, provider, effort, sent):
    body = await sent_body(fake_api, provider, "claude-opus-4-6", Reasoning(effort=effort))

    assert thinking_part(body) == {
        "thinking": {"type": "adaptive"},
        "output_config": {"effort": sent},
    }


@pytest.mark.parametrize("effort", EFFORT_LEVELS)
async def test_a_budget_model_gets_a_budget_below_max_tokens(fake_api, provider, effort: Effort):
    body = await sent_body(
        fake_api, provider, "claude-sonnet-4-5-20250929", Reasoning(effort=effort), max_tokens=20000
    )

    thinking = body["thinking"]
    assert thinking["type"] == "enabled"
    assert 1024 <= thinking["budget_tokens"] < 20000
    assert "output_config" not in body  # this model refuses effort


async def test_budgets_grow_with_the_effort(fake_api, provider):
    budgets = []
    for effort in EFFORT_LEVELS:
        body = await sent_body(fake_api, provider, "claude-haiku-4-5", Reasoning(effort=effort))
        budgets.append(body["thinking"]["budget_tokens"])

    assert budgets == sorted(budgets) and len(set(budgets)) == len(budgets)


async def test_a_small_max_tokens_leaves_no_room_to_think(fake_api, provider):
    body = await sent_body(
        fake_api, provider, "claude-haiku-4-5", Reasoning(effort="high"), max_tokens=1000
    )

    assert thinking_part(body) == {}


async def test_opus_4_5_gets_a_budget_and_its_effort(fake_api, provider):
    body = await sent_body(fake_api, provider, "claude-opus-4-5", Reasoning(effort="xhigh"))

    assert body["thinking"]["type"] == "enabled"
    assert body["output_config"] == {"effort": "high"}  # its highest


async def test_max_thinking_tokens_is_the_budget_where_the_model_takes_one(fake_api, provider):
    budget = await sent_body(fake_api, provider, "claude-sonnet-4-5", Reasoning(budget=5000))
    deprecated = await sent_body(fake_api, provider, "claude-sonnet-4-6", Reasoning(budget=5000))
    adaptive = await sent_body(fake_api, provider, "claude-sonnet-5-5", Reasoning(budget=5000))

    assert budget["thinking"] == {"type": "enabled", "budget_tokens": 5000}
    assert deprecated["thinking"] == {"type": "enabled", "budget_tokens": 5000}
    assert thinking_part(adaptive) == {"thinking": {"type": "adaptive"}}


async def test_max_thinking_tokens_0_turns_thinking_off_but_keeps_the_effort(fake_api, provider):
    off = await sent_body(fake_api, provider, "claude-sonnet-4-5", Reasoning(budget=0))
    with_effort = await sent_body(
        fake_api, provider, "claude-sonnet-5-5", Reasoning(effort="low", budget=0)
    )

    assert thinking_part(off) == {}
    assert thinking_part(with_effort) == {"output_config": {"effort": "low"}}


@pytest.mark.parametrize("reasoning", [None, Reasoning()])
async def test_nothing_asked_sends_nothing(fake_api, provider, reasoning):
    body = await sent_body(fake_api, provider, "claude-sonnet-5-5", reasoning)

    assert thinking_part(body) == {}


async def test_an_old_model_gets_no_thinking_fields(fake_api, provider):
    body = await sent_body(fake_api, provider, "claude-3-5-haiku-20241022", Reasoning("max", 4096))

    assert thinking_part(body) == {}


@pytest.mark.parametrize(
    ("model", "fields", "says"),
    [
        (
            "claude-sonnet-4-5",
            {"thinking": {"type": "enabled", "budget_tokens": 4000}},
            "`max_tokens` must be greater than `thinking.budget_tokens`",
        ),
        (
            "claude-sonnet-5-5",
            {"thinking": {"type": "enabled", "budget_tokens": 2000}},
            '"thinking.type.enabled" is not supported for this model',
        ),
        ("claude-sonnet-5-5", {"output_config": {"effort": "huge"}}, "output_config.effort"),
        ("claude-sonnet-4-5", {"output_config": {"effort": "low"}}, "does not support the effort"),
        ("claude-opus-4-6", {"output_config": {"effort": "xhigh"}}, "'xhigh' is not supported"),
        (
            "claude-sonnet-5-5",
            {"thinking": {"type": "adaptive"}, "temperature": 0.2},
            "`temperature` may only be set to 1",
        ),
    ],
)
async def test_what_the_api_refuses_comes_back_as_one_clear_message(
    fake_api, provider, model, fields, says
):
    request = ModelRequest(
        model=model, messages=[{"role": "user", "content": "hi"}], max_tokens=4000, extra=fields
    )

    with pytest.raises(ModelError) as raised:
        _ = [event async for event in provider.stream(request, AbortSignal())]

    assert says in raised.value.message
    assert raised.value.status == 400
    assert "Traceback" not in raised.value.message


TOOL_TURN = [
    {"role": "user", "content": "look"},
    {
        "role": "assistant",
        "content": [{"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {}}],
    },
    {
        "role": "user",
        "content": [
            {"type": "tool_result", "tool_use_id": "toolu_1", "content": "[interrupted]"},
            {"type": "text", "text": "now think hard"},
        ],
    },
]


async def test_a_turn_begun_without_thinking_goes_on_without_a_budget(fake_api, provider):
    # The effort was set (/effort, /model to a budget model) after a turn whose tool
    # calls were made without thinking: the API refuses a budget for the next request.
    fake_api.enqueue(reply(text("ok")))
    request = ModelRequest(
        model="claude-sonnet-4-5",
        messages=TOOL_TURN,
        max_tokens=32000,
        reasoning=Reasoning(effort="high"),
    )

    _ = [event async for event in provider.stream(request, AbortSignal())]

    assert await asyncio.to_thread(fake_api.requests[-1].finished.wait, 30)
    assert fake_api.requests[-1].outcome == "complete"
    assert "thinking" not in fake_api.requests[-1].body


async def test_a_turn_begun_with_thinking_goes_on_with_it(fake_api, provider):
    thought = {"type": "thinking", "thinking": "hm", "signature": "c2ln"}
    messages = [dict(m) for m in TOOL_TURN]
    messages[1] = {"role": "assistant", "content": [thought, *TOOL_TURN[1]["content"]]}
    fake_api.enqueue(reply(text("ok")))
    request = ModelRequest(
        model="claude-sonnet-4-5", messages=messages, reasoning=Reasoning(effort="high")
    )

    _ = [event async for event in provider.stream(request, AbortSignal())]

    assert fake_api.requests[-1].body["thinking"]["type"] == "enabled"
