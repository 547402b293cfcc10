"""Token usage as the Messages API reports it, and how it adds up."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class Usage:
    input_tokens: int = 0
    output_tokens: int = 0
    cache_creation_input_tokens: int = 0
    cache_read_input_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.input_tokens + other.input_tokens,
            self.output_tokens + other.output_tokens,
            self.cache_creation_input_tokens + other.cache_creation_input_tokens,
            self.cache_read_input_tokens + other.cache_read_input_tokens,
        )

    @property
    def context_tokens(self) -> int:
        """Tokens the request occupied in the context window (all input kinds)."""
        return self.input_tokens + self.cache_creation_input_tokens + self.cache_read_input_tokens

    def to_dict(self) -> dict[str, int]:
        return {
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "cache_creation_input_tokens": self.cache_creation_input_tokens,
            "cache_read_input_tokens": self.cache_read_input_tokens,
        }

    @classmethod
    def from_api(cls, raw: Any) -> Usage:
        """Build from the SDK's usage object or a plain dict; missing fields are 0."""

        def pick(name: str) -> int:
            value = raw.get(name) if isinstance(raw, dict) else getattr(raw, name, None)
            return int(value or 0)

        return cls(
            pick("input_tokens"),
            pick("output_tokens"),
            pick("cache_creation_input_tokens"),
            pick("cache_read_input_tokens"),
        )


@dataclass(frozen=True, slots=True)
class SessionTotals:
    """What a session has used so far: tokens, dollars, model requests."""

    usage: Usage = field(default_factory=Usage)
    cost_usd: float | None = 0.0  # None: a model's prices are unknown
    turns: int = 0
