"""The session's reasoning ask (core/reasoning.py) as Messages API fields.

What a model takes comes from the catalog (core/model_catalog.py
`claude_thinking`):

- adaptive models (4.6 and later): `thinking: {"type": "adaptive"}` and the
  effort as `output_config: {"effort": ...}`, the level the model takes
  nearest below the one asked (`xhigh` on a 4.6 model is `high`). Effort is
  generally available: no beta header (the old `effort-2025-11-24` one is
  refused by some gateways).
- budget models (3.7 to 4.5): `thinking: {"type": "enabled", "budget_tokens":
  N}`; an effort level becomes a budget (`EFFORT_BUDGETS`), kept below the
  reply's `max_tokens` as the API requires (a budget under the API's least,
  1024, means no thinking). Opus 4.5 also takes `output_config.effort`.
- `--max-thinking-tokens N` asks for that budget where the model takes one
  (else adaptive thinking); 0 asks for no thinking.
- older models: nothing is sent.

A budget is not sent to go on with a turn begun without thinking: with a budget
the API wants the assistant message whose tool calls the request answers to start
with a thinking block, which one made before the effort was set (`/effort`, `/model`
mid-session, an interrupted turn) lacks. That request goes without `thinking`; the
next turn thinks.
"""

from __future__ import annotations

from typing import Any

from agentcli.core.messages import Message
from agentcli.core.model_catalog import claude_thinking
from agentcli.core.reasoning import MIN_THINKING_BUDGET, Effort, Reasoning, nearest_level

EFFORT_BUDGETS: dict[Effort, int] = {
    "low": 2_048,
    "medium": 8_000,
    "high": 16_000,
    "xhigh": 24_000,
    "max": 31_999,
}


def thinking_fields(
    model: str, reasoning: Reasoning | None, max_tokens: int, messages: list[Message]
) -> dict[str, Any]:
    """The body fields (`thinking`, `output_config`) for `reasoning` on `model`, going
    on from `messages` (as the request sends them)."""
    if reasoning is None or not reasoning.asked:
        return {}
    support = claude_thinking(model)
    fields: dict[str, Any] = {}
    thinking = _thinking(support.adaptive, support.budget, reasoning, max_tokens)
    if thinking is not None and (thinking["type"] != "enabled" or _turn_thought(messages)):
        fields["thinking"] = thinking
    level = nearest_level(reasoning.effort, support.efforts) if reasoning.effort else None
    if level is not None:
        fields["output_config"] = {"effort": level}
    return fields


def _thinking(
    adaptive: bool, budget_form: bool, reasoning: Reasoning, max_tokens: int
) -> dict[str, Any] | None:
    budget = reasoning.budget
    if budget == 0:
        return None  # no thinking asked for: the field is left out (every model's default)
    if budget is not None and budget_form:
        return {"type": "enabled", "budget_tokens": budget}
    if adaptive:
        return {"type": "adaptive"}
    if budget_form and reasoning.effort is not None:
        tokens = min(EFFORT_BUDGETS[reasoning.effort], max_tokens - 1)
        if tokens >= MIN_THINKING_BUDGET:
            return {"type": "enabled", "budget_tokens": tokens}
    return None


def _turn_thought(messages: list[Message]) -> bool:
    """Whether the request may carry a budget: its last message answers no tool calls,
    or the assistant message that made them starts with thinking."""
    last = messages[-1]["content"] if messages else ""
    if isinstance(last, str) or not any(b.get("type") == "tool_result" for b in last):
        return True
    made = messages[-2]["content"] if len(messages) > 1 else ""
    first = made[0] if isinstance(made, list) and made else None
    return first is not None and first.get("type") in ("thinking", "redacted_thinking")
