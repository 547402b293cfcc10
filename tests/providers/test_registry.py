"""Model names to back ends, and what the settings say about each model."""

from __future__ import annotations

import pytest

from agentcli.config.provider_settings import ProviderSettings
from agentcli.core.pricing import add_cost, cost_usd, format_cost
from agentcli.core.usage import Usage
from agentcli.engine.windows import DEFAULT_WINDOW, UNKNOWN_MODEL_WINDOW, context_window
from agentcli.providers.base import ModelError
from agentcli.providers.registry import ProviderRouter, model_catalog, split_model
from agentcli.providers.tuning import ApiTuning

PROVIDERS = {
    "local": ProviderSettings.model_validate(
        {
            "type": "openai-chat",
            "baseUrl": "http://localhost:11434/v1",
            "models": {
                "qwen3-coder": {"contextWindow": 65536, "inputPrice": 1.0, "outputPrice": 4.0},
                "tiny": {"contextWindow": 4096},
            },
        }
    ),
    "proxy": ProviderSettings.model_validate({"type": "anthropic", "baseUrl": "http://proxy"}),
}
USAGE = Usage(input_tokens=1_000_000, output_tokens=1_000_000, cache_read_input_tokens=1_000_000)


def test_plain_names_are_anthropic_and_provider_names_split_once():
    assert split_model("claude-sonnet-5-5", PROVIDERS) == (None, "claude-sonnet-5-5")
    assert split_model("local/qwen/qwen3-coder", PROVIDERS) == ("local", "qwen/qwen3-coder")


def test_an_unknown_provider_names_the_configured_ones():
    with pytest.raises(ModelError, match=r"Unknown provider 'nope'.*local, proxy"):
        split_model("nope/model", PROVIDERS)


def test_windows_come_from_the_settings_else_a_safe_default():
    catalog = model_catalog(PROVIDERS)

    assert context_window("local/qwen3-coder", catalog) == 65536
    assert context_window("local/unlisted", catalog) == UNKNOWN_MODEL_WINDOW
    assert context_window("claude-sonnet-5-5", catalog) == DEFAULT_WINDOW
    assert context_window("proxy/claude-opus-4-5", catalog) == DEFAULT_WINDOW


def test_costs_come_from_the_settings_and_are_unknown_without_prices():
    catalog = model_catalog(PROVIDERS)

    # Cached input is billed at the input price unless the settings say otherwise.
    assert cost_usd("local/qwen3-coder", USAGE, catalog) == pytest.approx(1 + 4 + 1)
    assert cost_usd("local/tiny", USAGE, catalog) is None
    assert cost_usd("local/unlisted", USAGE, catalog) is None
    assert cost_usd("proxy/claude-sonnet-5-5", USAGE, catalog) == cost_usd(
        "claude-sonnet-5-5", USAGE
    )


def test_an_unknown_cost_stays_unknown_and_says_so():
    assert add_cost(1.5, None) is None and add_cost(None, 2.0) is None
    assert add_cost(1.0, 2.0) == 3.0
    assert format_cost(None) == "cost unknown" and format_cost(0.5) == "$0.50"


def test_a_key_variable_that_is_not_set_is_named(monkeypatch):
    monkeypatch.delenv("LOCAL_KEY", raising=False)
    settings = ProviderSettings(type="openai-chat", baseUrl="http://x/v1", apiKeyEnv="LOCAL_KEY")
    router = ProviderRouter({"local": settings}, ApiTuning())

    with pytest.raises(ModelError, match="LOCAL_KEY, which is not set"):
        router.connect("local/m")


def test_a_key_may_come_from_the_settings_env():
    settings = ProviderSettings(type="openai-chat", baseUrl="http://x/v1", apiKeyEnv="LOCAL_KEY")
    router = ProviderRouter({"local": settings}, ApiTuning(), env={"LOCAL_KEY": "k"})

    router.connect("local/m")  # no error


def test_the_apis_server_tools_are_offered_only_to_models_whose_api_runs_them(tmp_path):
    """WebSearch runs on Anthropic's side: a model routed to a local server must never
    be sent it (the server would reject the request), a plain Claude model is."""
    from agentcli.tools.web.fetch_tool import WebFetchTool
    from agentcli.tools.web.search_tool import WebSearchTool
    from tests.engine.harness import make_engine

    settings = ProviderSettings(type="openai-chat", baseUrl="http://127.0.0.1:9/v1")
    router = ProviderRouter({"local": settings}, ApiTuning())
    engine = make_engine(router, [WebSearchTool(), WebFetchTool()], tmp_path, model="local/m")

    assert engine.visible_tools().names() == ["WebFetch"]
    engine.config.model = "claude-sonnet-5-5"  # `/model`
    assert engine.visible_tools().names() == ["WebSearch", "WebFetch"]
    engine.config.model = "nowhere/m"  # a provider nobody configured: nothing of Anthropic's
    assert engine.visible_tools().names() == ["WebFetch"]
