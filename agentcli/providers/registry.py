"""From the settings' `providers` and a model name to the back end that serves it.

A model is named `provider/model` (`local/qwen3-coder`: the model `qwen3-coder`
of the provider the settings call `local`); a plain name (`claude-sonnet-5-5`)
is Anthropic's, through the Anthropic provider as always. `ProviderRouter`
is the one Provider the engine holds: it sends each request to the back end
its model names, building that back end the first time it is needed, so
`/model` can switch vendors mid-session and a session that never uses
Anthropic needs no Anthropic key. The engine stays provider-neutral: it sees
the same events from every back end.

Provider settings come from the settings layers (config/provider_settings.py);
a project's own file contributes them only in a trusted folder (settings.py).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING

from agentcli.config.credentials import credential, expand
from agentcli.config.settings import Settings
from agentcli.core.abort import AbortSignal
from agentcli.core.model_catalog import ModelCatalog, ModelSpec
from agentcli.core.price import Price
from agentcli.providers.base import (
    ModelError,
    ModelRequest,
    Provider,
    ProviderEvent,
    StreamStarted,
    close_provider,
)
from agentcli.providers.tuning import ApiTuning

if TYPE_CHECKING:
    from agentcli.config.provider_settings import ProviderSettings
    from agentcli.providers.openai_http import OpenAIProvider

# Where a provider without a `baseUrl` sends its requests.
DEFAULT_BASE_URLS = {
    "openai-chat": "https://api.openai.com/v1",
    "openai-responses": "https://api.openai.com/v1",
}


def split_model(model: str, providers: Mapping[str, ProviderSettings]) -> tuple[str | None, str]:
    """`local/qwen3` -> ("local", "qwen3"); a plain name -> (None, name). Raises
    ModelError, saying what is configured, for a provider nobody configured."""
    name, slash, bare = model.partition("/")
    if not slash:
        return None, model
    if name not in providers:
        known = ", ".join(sorted(providers)) or "none"
        raise ModelError(
            f"Unknown provider {name!r} in model {model!r} (configured providers: {known}). "
            'Add it under "providers" in your settings; see docs/providers.md.',
            kind="invalid_request_error",
        )
    if not bare:
        raise ModelError(f"No model named after {name!r}/: use {name}/MODEL.")
    return name, bare


def model_catalog(providers: Mapping[str, ProviderSettings]) -> ModelCatalog:
    """The configured models' windows and prices, by full name."""
    specs = {}
    for name, provider in providers.items():
        for model, settings in provider.models.items():
            price = None
            if settings.inputPrice is not None and settings.outputPrice is not None:
                cached = settings.cachedInputPrice
                if cached is None and provider.type != "anthropic":
                    cached = settings.inputPrice  # never below what may be billed
                price = Price(settings.inputPrice, settings.outputPrice, cached)
            efforts = settings.reasoningEfforts
            specs[f"{name}/{model}"] = ModelSpec(
                settings.contextWindow, price, tuple(efforts) if efforts is not None else None
            )
    anthropic = frozenset(n for n, p in providers.items() if p.type == "anthropic")
    return ModelCatalog(specs, anthropic)


def providers_of(settings: Settings | None) -> dict[str, ProviderSettings]:
    """The settings' providers by name (a project's own only in a trusted folder)."""
    if settings is None:
        return {}
    return {name: item.value for name, item in settings.providers.items()}


def api_key_variables(providers: Mapping[str, ProviderSettings]) -> list[str]:
    """The variables the providers read their keys from (kept from child processes)."""
    return [p.apiKeyEnv for p in providers.values() if p.apiKeyEnv]


class ProviderRouter:
    """The engine's provider: each request goes to the back end its model names."""

    name = "router"

    def __init__(
        self,
        providers: Mapping[str, ProviderSettings],
        tuning: ApiTuning,
        env: Mapping[str, str] | None = None,
    ) -> None:
        self.providers = dict(providers)
        self._tuning = tuning
        self._env = dict(env or {})  # the settings' `env`, where a key may be named
        self._built: dict[str | None, Provider] = {}

    def connect(self, model: str) -> None:
        """Build the back end of `model` now (raises ModelError: no key, unknown provider),
        so a front end reports it at start rather than at the first prompt."""
        self._backend(model)

    def api_of(self, model: str) -> str:
        """The API `model`'s requests go to: "anthropic" for a plain name, else the
        configured provider's type ("openai-chat", "openai-responses", "anthropic"); ""
        for a provider nobody configured (its requests fail, saying why, when sent)."""
        try:
            name, _bare = split_model(model, self.providers)
        except ModelError:
            return ""
        return "anthropic" if name is None else self.providers[name].type

    def _backend(self, model: str) -> tuple[Provider, str | None, str]:
        name, bare = split_model(model, self.providers)
        if name not in self._built:
            self._built[name] = self._build(name)
        return self._built[name], name, bare

    def _build(self, name: str | None) -> Provider:
        tuning = self._tuning
        if name is None:
            from agentcli.providers.anthropic import AnthropicProvider

            return AnthropicProvider(retry=tuning.retry, timeouts=tuning.timeouts)
        return build_provider(name, self.providers[name], tuning, self._key(name))

    def _key(self, name: str) -> str | None:
        variable = self.providers[name].apiKeyEnv
        if variable is None:
            return None
        key = credential(variable) or expand(self._env.get(variable, ""))
        if not key:
            raise ModelError(
                f"Provider {name!r} reads its API key from {variable}, which is not set. "
                f"For example: export {variable}=...",
                kind="authentication_error",
            )
        return key

    async def stream(
        self, request: ModelRequest, abort: AbortSignal
    ) -> AsyncIterator[ProviderEvent]:
        provider, name, bare = self._backend(request.model)
        async for event in provider.stream(replace(request, model=bare), abort):
            if name is not None and isinstance(event, StreamStarted):
                # Our name for the model: what its prices and window are found under.
                event = replace(event, model=request.model)
            yield event

    async def aclose(self) -> None:
        for provider in self._built.values():
            await close_provider(provider)
        self._built.clear()


def build_provider(
    name: str, settings: ProviderSettings, tuning: ApiTuning, api_key: str | None
) -> Provider:
    """The back end of one configured provider."""
    if settings.type == "anthropic":
        from agentcli.providers.anthropic import AnthropicProvider

        return AnthropicProvider(
            api_key=api_key, base_url=settings.baseUrl, retry=tuning.retry, timeouts=tuning.timeouts
        )
    limits = {m: s.maxOutputTokens for m, s in settings.models.items() if s.maxOutputTokens}
    efforts: dict[str, tuple[str, ...]] = {
        m: tuple(s.reasoningEfforts)
        for m, s in settings.models.items()
        if s.reasoningEfforts is not None
    }
    base_url = settings.baseUrl or DEFAULT_BASE_URLS[settings.type]
    kind: type[OpenAIProvider]
    if settings.type == "openai-chat":
        from agentcli.providers.openai_chat import OpenAIChatProvider as kind
    else:
        from agentcli.providers.openai_responses import OpenAIResponsesProvider as kind
    return kind(
        base_url=base_url,
        api_key=api_key,
        provider_name=name,
        max_tokens=limits,
        reasoning_efforts=efforts,
        retry=tuning.retry,
        timeouts=tuning.timeouts,
    )
