"""`/model`: the session's model, the models the providers offer, and switching.

A name is checked before it is taken: a `provider/model` name must name a
configured provider whose key is there, or the model stays as it was and
the person reads why.
"""

from __future__ import annotations

import asyncio
from typing import Any

from agentcli.providers.base import ModelError
from agentcli.providers.model_listing import list_models
from agentcli.providers.registry import ProviderRouter, providers_of, split_model


async def listing_text(engine: Any) -> str:
    """The current model, then each provider's models (or why they could not be listed)."""
    lines = [f"Model: `{engine.config.model}` · `/model NAME` to change it."]
    providers = providers_of(engine.settings)
    if not providers:
        return lines[0]
    env = engine.settings.env_values() if engine.settings is not None else {}
    lines += ["", "Plain names (`claude-sonnet-5-5`) use Anthropic's API. Configured providers:"]
    for found in await list_models(providers, env):
        lines += ["", f"**{found.provider}** ({found.type})"]
        lines += [f"- `{found.provider}/{model}`" for model in found.models]
        if found.problem:
            lines.append(f"- ({found.problem})")
        elif not found.models:
            lines.append("- (no models listed: add them under `models` in the settings)")
    return "\n".join(lines)


async def switch_problem(engine: Any, model: str) -> str | None:
    """Why `model` cannot be used in this session, or None. Its back end is built now
    (its key checked), off the UI thread: the Anthropic SDK's import is slow."""
    try:
        split_model(model, providers_of(engine.settings))
        if isinstance(engine.provider, ProviderRouter):
            await asyncio.to_thread(engine.provider.connect, model)
    except ModelError as error:
        return f"{error.message} The model is still `{engine.config.model}`."
    return None
