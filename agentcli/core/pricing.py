"""Dollars per million tokens, by model family, and the cost of a usage.

A price is core/price.py's `Price` (which also says what a cache write and
read cost). A Claude model we do not know is priced like its family; an
unknown family like Sonnet, and `is_estimate()` says so. Another vendor's
model (`provider/model`) is priced only from its settings
(core/model_catalog.py): without them its cost is unknown (None), never a
guess, and once one request's cost is unknown so is the session's.
"""

from __future__ import annotations

from agentcli.core.model_catalog import DEFAULT_CATALOG, ModelCatalog
from agentcli.core.price import Price
from agentcli.core.usage import Usage

# Most specific prefix first.
_PRICES: tuple[tuple[str, Price], ...] = (
    ("claude-opus-4-1", Price(15.0, 75.0)),
    ("claude-opus-4-0", Price(15.0, 75.0)),
    ("claude-opus-4-2025", Price(15.0, 75.0)),
    ("claude-opus", Price(5.0, 25.0)),
    ("claude-mythos", Price(5.0, 25.0)),
    ("claude-fable", Price(3.0, 15.0)),
    ("claude-sonnet", Price(3.0, 15.0)),
    ("claude-haiku-3", Price(0.25, 1.25)),
    ("claude-haiku", Price(1.0, 5.0)),
)
_FALLBACK = Price(3.0, 15.0)


def price_for(model: str) -> Price:
    for prefix, price in _PRICES:
        if model.startswith(prefix):
            return price
    return _FALLBACK


def is_estimate(model: str) -> bool:
    return not any(model.startswith(prefix) for prefix, _ in _PRICES)


def model_price(model: str, catalog: ModelCatalog | None = None) -> Price | None:
    """The settings' price for `model`, else Claude's; None when nobody knows it."""
    catalog = catalog or DEFAULT_CATALOG
    configured = catalog.spec(model).price
    if configured is not None:
        return configured
    claude = catalog.anthropic_name(model)
    return price_for(claude) if claude is not None else None


def cost_usd(model: str, usage: Usage, catalog: ModelCatalog | None = None) -> float | None:
    """The usage's cost in dollars; None when the model's prices are unknown."""
    price = model_price(model, catalog)
    if price is None:
        return None
    return (
        usage.input_tokens * price.input
        + usage.output_tokens * price.output
        + usage.cache_creation_input_tokens * price.cache_write
        + usage.cache_read_input_tokens * price.cache_read
    ) / 1_000_000


def add_cost(total: float | None, cost: float | None) -> float | None:
    """A running total: unknown once any part of it is."""
    return None if total is None or cost is None else total + cost


def format_cost(cost: float | None, digits: int = 2) -> str:
    return "cost unknown" if cost is None else f"${cost:.{digits}f}"
