"""Which models each configured provider offers, for `/model`.

The models named in the settings come first; an OpenAI-compatible server
also lists its own (`GET {baseUrl}/models`: Ollama's pulled models, the one
llama.cpp or vLLM serves, OpenRouter's catalogue). Asking is bounded by a
short timeout and all servers are asked at once; a server that is down or
offers no list gives a problem to show, never an error, since `/model NAME`
works without the list.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from agentcli.config.credentials import credential, expand
from agentcli.config.provider_settings import ProviderSettings
from agentcli.providers.registry import DEFAULT_BASE_URLS

LIST_TIMEOUT_S = 3.0


@dataclass(frozen=True, slots=True)
class ProviderModels:
    provider: str
    type: str
    models: list[str] = field(default_factory=list)  # configured first, then the server's
    problem: str | None = None  # why the server's list could not be had


async def list_models(
    providers: Mapping[str, ProviderSettings],
    env: Mapping[str, str] | None = None,
    timeout_s: float = LIST_TIMEOUT_S,
) -> list[ProviderModels]:
    """Every provider's models, in the settings' order."""
    asked = [_one(name, p, env or {}, timeout_s) for name, p in providers.items()]
    return list(await asyncio.gather(*asked))


async def _one(
    name: str, provider: ProviderSettings, env: Mapping[str, str], timeout_s: float
) -> ProviderModels:
    configured = list(provider.models)
    if provider.type == "anthropic":  # its own list needs its own headers: the settings' only
        return ProviderModels(name, provider.type, configured)
    try:
        served = await _served(provider, env, timeout_s)
    except Exception as exc:  # whatever the server did, the list is only missing
        problem = f"could not list the server's models ({_why(exc, timeout_s)})"
        return ProviderModels(name, provider.type, configured, problem)
    return ProviderModels(
        name, provider.type, configured + [m for m in served if m not in configured]
    )


async def _served(
    provider: ProviderSettings, env: Mapping[str, str], timeout_s: float
) -> list[str]:
    import httpx

    base = (provider.baseUrl or DEFAULT_BASE_URLS[provider.type]).rstrip("/")
    variable = provider.apiKeyEnv
    key = variable and (credential(variable) or expand(env.get(variable, "")))
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    async with httpx.AsyncClient(timeout=timeout_s, headers=headers) as client:
        response = await client.get(f"{base}/models")
    response.raise_for_status()
    data: Any = response.json().get("data")
    if not isinstance(data, list):
        raise ValueError("the answer has no model list")
    return sorted(str(m["id"]) for m in data if isinstance(m, dict) and "id" in m)


def _why(exc: Exception, timeout_s: float) -> str:
    import httpx

    if isinstance(exc, httpx.TimeoutException):
        return f"no answer within {timeout_s:g} s"
    if isinstance(exc, httpx.HTTPStatusError):
        return f"HTTP {exc.response.status_code}"
    if isinstance(exc, httpx.ConnectError):
        return "could not connect"
    return str(exc) or type(exc).__name__
