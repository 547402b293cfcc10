"""How hard the model should think: the person's ask, before any API's shape.

`--effort`, the `effortLevel` setting and `/effort` name a level; the
level's meaning on the wire belongs to each API and model (the Messages
API's adaptive thinking and `output_config.effort`, or a thinking budget;
OpenAI's `reasoning_effort`), worked out from the model catalog
(core/model_catalog.py) by each provider. `--max-thinking-tokens` asks for
a thinking budget instead (0: no thinking).

Nothing set (the default) sends nothing: the model thinks as its API decides.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Effort = Literal["low", "medium", "high", "xhigh", "max"]
EFFORT_LEVELS: tuple[Effort, ...] = ("low", "medium", "high", "xhigh", "max")
# The least thinking budget the Messages API takes.
MIN_THINKING_BUDGET = 1024
# The length of a reply the engine asks for (engine/parts.py EngineConfig.max_tokens).
REPLY_MAX_TOKENS = 32000


@dataclass(frozen=True, slots=True)
class Reasoning:
    """The session's ask: an effort level, a thinking budget in tokens (0: none), both
    or neither (None: not asked)."""

    effort: Effort | None = None
    budget: int | None = None

    @property
    def asked(self) -> bool:
        return self.effort is not None or self.budget is not None


def parse_effort(text: str) -> Effort | None:
    """`text` as an effort level (case and spaces aside), or None when it is not one."""
    word = text.strip().lower()
    for level in EFFORT_LEVELS:
        if level == word:
            return level
    return None


def budget_problem(budget: int, max_tokens: int) -> str | None:
    """Why `budget` cannot be a thinking budget for replies of `max_tokens`, or None."""
    if budget == 0:
        return None
    if budget < MIN_THINKING_BUDGET:
        return f"must be 0 (no thinking) or at least {MIN_THINKING_BUDGET} (the API's least)"
    if budget >= max_tokens:
        return f"must be less than the reply's limit ({max_tokens} tokens)"
    return None


def nearest_level(wanted: Effort, offered: tuple[Effort, ...]) -> Effort | None:
    """The level of `offered` to send for `wanted`: itself, else the highest offered
    below it (a model without `xhigh` gets `high`), else the lowest offered."""
    if not offered:
        return None
    if wanted in offered:
        return wanted
    below = [level for level in offered if EFFORT_LEVELS.index(level) < EFFORT_LEVELS.index(wanted)]
    return below[-1] if below else offered[0]
