"""What the settings say about each model: its context window and its prices.

Anthropic's models are known (core/pricing.py, engine/windows.py). A model
named `provider/model` of another vendor is known only through its
provider's `models` settings (config/provider_settings.py); without them
its window gets a small, safe default and its cost is unknown, which the
person is shown rather than a made-up figure.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from agentcli.core.price import Price


@dataclass(frozen=True, slots=True)
class ModelSpec:
    """One configured model; None: not given in the settings."""

    context_window: int | None = None
    price: Price | None = None


@dataclass(frozen=True)
class ModelCatalog:
    """Configured models by full name (`local/qwen3-coder`), and which provider names
    serve Anthropic's API (their models are priced and sized like plain Claude names)."""

    specs: Mapping[str, ModelSpec] = field(default_factory=dict)
    anthropic_providers: frozenset[str] = frozenset()

    def spec(self, model: str) -> ModelSpec:
        return self.specs.get(model, ModelSpec())

    def anthropic_name(self, model: str) -> str | None:
        """The Claude model name behind `model`, or None for another vendor's model."""
        provider, slash, bare = model.partition("/")
        if not slash:
            return model
        return bare if provider in self.anthropic_providers else None


DEFAULT_CATALOG = ModelCatalog()
