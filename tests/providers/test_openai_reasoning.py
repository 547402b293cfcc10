"""--effort on the OpenAI APIs: `reasoning_effort` (Chat Completions) and
`reasoning.effort` (Responses), only for a model that takes one, against the fake
OpenAI server, which refuses an unknown value and the field on a model that does not
reason."""

from __future__ import annotations

from typing import Any

import pytest

from agentcli.core.abort import AbortSignal
from agentcli.core.model_catalog import ModelSpec, openai_effort, openai_efforts
from agentcli.core.reasoning import Reasoning
from agentcli.providers.base import ModelError, ModelRequest
from agentcli.providers.openai_chat import OpenAIChatProvider
from agentcli.providers.openai_responses import OpenAIResponsesProvider
from agentcli.providers.retry import RetryPolicy
from tests.fakeapi import reply, text

KINDS = {"chat": OpenAIChatProvider, "responses": OpenAIResponsesProvider}


def effort_in(kind: str, body: dict[str, Any]) -> str | None:
    if kind == "chat":
        return body.get("reasoning_effort")
    return (body.get("reasoning") or {}).get("effort")


async def sent(fake_openai, kind: str, model: str, effort, **settings: Any) -> dict[str, Any]:
    provider = KINDS[kind](
        base_url=fake_openai.base_url, api_key="k", retry=RetryPolicy(0), **settings
    )
    fake_openai.enqueue(reply(text("ok")))
    request = ModelRequest(
        model=model,
        messages=[{"role": "user", "content": "hi"}],
        reasoning=Reasoning(effort=effort),
    )
    try:
        _ = [event async for event in provider.stream(request, AbortSignal())]
    finally:
        await provider.aclose()
    return fake_openai.requests[-1].body


@pytest.mark.parametrize("kind", sorted(KINDS))
@pytest.mark.parametrize(
    ("effort", "expected"),
    [("low", "low"), ("medium", "medium"), ("high", "high"), ("xhigh", "high"), ("max", "high")],
)
async def test_a_reasoning_model_gets_the_nearest_effort(fake_openai, kind, effort, expected):
    body = await sent(fake_openai, kind, "o4-mini", effort)

    assert effort_in(kind, body) == expected


@pytest.mark.parametrize("kind", sorted(KINDS))
async def test_a_model_that_does_not_reason_gets_no_field(fake_openai, kind):
    body = await sent(fake_openai, kind, "qwen3-coder", "high")

    assert "reasoning_effort" not in body and "reasoning" not in body


@pytest.mark.parametrize("kind", sorted(KINDS))
async def test_the_settings_say_which_values_a_model_takes(fake_openai, kind):
    efforts = {"qwen3-coder": ("low", "medium", "high", "xhigh"), "gpt-5-mini": ()}

    local = await sent(fake_openai, kind, "qwen3-coder", "max", reasoning_efforts=efforts)
    opted_out = await sent(fake_openai, kind, "gpt-5-mini", "low", reasoning_efforts=efforts)

    assert effort_in(kind, local) == "xhigh"
    assert effort_in(kind, opted_out) is None


@pytest.mark.parametrize("kind", sorted(KINDS))
async def test_no_effort_sends_nothing(fake_openai, kind):
    body = await sent(fake_openai, kind, "o3", None)

    assert "reasoning_effort" not in body and "reasoning" not in body


@pytest.mark.parametrize("kind", sorted(KINDS))
async def test_the_servers_refusal_is_one_clear_message(fake_openai, kind):
    # A setting that claims a model reasons when the server says it does not.
    with pytest.raises(ModelError) as raised:
        await sent(fake_openai, kind, "gpt-4.1", "low", reasoning_efforts={"gpt-4.1": ("low",)})

    assert "is not supported with this model" in raised.value.message


@pytest.mark.parametrize(
    ("model", "offered"),
    [
        ("o1", ("low", "medium", "high")),
        ("o3-mini", ("low", "medium", "high")),
        ("gpt-5.2-codex", ("low", "medium", "high")),
        ("openai/gpt-oss-120b", ("low", "medium", "high")),
        ("gpt-4o", ()),
        ("qwen3-coder", ()),
        ("omni-thing", ()),
    ],
)
def test_reasoning_models_by_name(model, offered):
    assert openai_efforts(model, ModelSpec()) == offered


def test_the_nearest_value_below_else_the_lowest():
    assert openai_effort("medium", ("minimal", "high")) == "minimal"
    assert openai_effort("low", ("medium", "high")) == "medium"
    assert openai_effort("high", ()) is None
