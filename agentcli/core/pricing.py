"""Dollars per million tokens, by model family, and the cost of a usage.

Cache writes cost 1.25x the input price and cache reads 0.1x (5-minute
cache), as the API bills them. A model we do not know is priced like its
family; an unknown family like Sonnet, and `is_estimate()` says so.
"""

from __future__ import annotations

from dataclasses import dataclass

from agentcli.core.usage import Usage


@dataclass(frozen=True, slots=True)
class Price:
    input: float
    output: float

    @property
    def cache_write(self) -> float:
        return self.input * 1.25

    @property
    def cache_read(self) -> float:
        return self.input * 0.1


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


def cost_usd(model: str, usage: Usage) -> float:
    price = price_for(model)
    return (
        usage.input_tokens * price.input
        + usage.output_tokens * price.output
        + usage.cache_creation_input_tokens * price.cache_write
        + usage.cache_read_input_tokens * price.cache_read
    ) / 1_000_000
