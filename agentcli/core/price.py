"""One model's price: dollars per million tokens, and what the cache costs.

Cache writes cost 1.25x the input price and cache reads 0.1x (5-minute
cache), as the API bills them, unless the settings give a cache read's price.
Both the settings' catalog (core/model_catalog.py) and Claude's price list
(core/pricing.py) speak of prices in this shape.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Price:
    input: float
    output: float
    cached_input: float | None = None  # a cache read's price, where the settings give it

    @property
    def cache_write(self) -> float:
        return self.input * 1.25

    @property
    def cache_read(self) -> float:
        return self.input * 0.1 if self.cached_input is None else self.cached_input
