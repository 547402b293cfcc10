"""The Messages API's rules for `thinking`, `output_config.effort` and sampling with
thinking, as the real service applies them (each a 400 `invalid_request_error`).

The server's own table of models, written from Anthropic's documentation and kept
apart from agentcli's catalog (core/model_catalog.py), so a wrong rule there shows up
as a rejected request here:

- adaptive only (Opus 4.7 and later, every Claude 5, Mythos, Fable): a budget
  (`"type": "enabled"`) is refused; xhigh and max are taken.
- 4.6 (Opus, Sonnet): adaptive or a budget; effort low..high and max, no xhigh.
- Opus 4.5: a budget only; effort low..high.
- Sonnet/Haiku 4.5, the 4.0/4.1 models, 3.7 Sonnet: a budget only, no effort.
- older: no thinking at all.

Everywhere: a budget is an integer of at least 1024 and below `max_tokens`; with
thinking on, `temperature` may only be 1 and `top_k` is refused. With a budget
(`"enabled"`), the assistant message whose tool calls the request's last message
answers must start with a thinking block: the model always thinks first in that
mode, so a turn begun without thinking cannot go on with it.
"""

from __future__ import annotations

from typing import Any

EFFORTS = ("low", "medium", "high", "xhigh", "max")
_ADAPTIVE_ONLY = ("claude-opus-4-7", "claude-opus-4-8", "claude-mythos", "claude-fable")
_FOUR_SIX = ("claude-opus-4-6", "claude-sonnet-4-6")
_BUDGET = (
    "claude-opus-4-5",
    "claude-sonnet-4-5",
    "claude-haiku-4-5",
    "claude-opus-4-1",
    "claude-opus-4-0",
    "claude-opus-4-2025",
    "claude-sonnet-4-0",
    "claude-sonnet-4-2025",
    "claude-3-7-sonnet",
)


def _kind(model: str) -> tuple[bool, bool, tuple[str, ...]]:
    """(adaptive taken, budget taken, effort levels taken) for `model`."""
    name = model.removesuffix("[1m]")
    if name.startswith(_ADAPTIVE_ONLY) or _major(name) >= 5:
        return True, False, EFFORTS
    if name.startswith(_FOUR_SIX):
        return True, True, ("low", "medium", "high", "max")
    if name.startswith("claude-opus-4-5"):
        return False, True, ("low", "medium", "high")
    if name.startswith(_BUDGET):
        return False, True, ()
    return False, False, ()


def _major(name: str) -> int:
    for word in name.split("-")[1:]:
        if word.isdigit() and len(word) < 8:
            return int(word)
    return 0


def check_thinking(body: dict[str, Any]) -> str | None:
    """The first problem with the request's thinking, effort and sampling, or None."""
    model = str(body.get("model", ""))
    adaptive, budget_ok, efforts = _kind(model)
    thinking = body.get("thinking")
    on = False
    if thinking is not None:
        if not isinstance(thinking, dict):
            return "thinking: Input should be a valid dictionary"
        kind = thinking.get("type")
        if kind == "enabled":
            problem = _budget_problem(thinking, body, model, budget_ok, adaptive)
            if problem:
                return problem
            problem = _unthought_tool_turn(body["messages"])
            if problem:
                return problem
            on = True
        elif kind == "adaptive":
            if not adaptive:
                return f"adaptive thinking is not supported on this model ({model})"
            if set(thinking) - {"type", "display"}:
                return "thinking.adaptive: Extra inputs are not permitted"
            on = True
        elif kind == "disabled":
            if adaptive and not budget_ok:
                return f'"thinking.type.disabled" is not supported for this model ({model})'
        else:
            return "thinking.type: Input should be 'enabled', 'adaptive' or 'disabled'"
    problem = _effort_problem(body.get("output_config"), model, efforts)
    if problem:
        return problem
    if on:
        temperature = body.get("temperature")
        if temperature is not None and temperature != 1:
            return (
                "`temperature` may only be set to 1 when thinking is enabled. Please consult "
                "our documentation at https://docs.claude.com/en/docs/build-with-claude/"
                "extended-thinking#important-considerations-when-using-extended-thinking"
            )
        if body.get("top_k") is not None:
            return "`top_k` must be unset when thinking is enabled."
    return None


def _budget_problem(
    thinking: dict[str, Any], body: dict[str, Any], model: str, budget_ok: bool, adaptive: bool
) -> str | None:
    if not budget_ok:
        if adaptive:
            return (
                f'"thinking.type.enabled" is not supported for this model ({model}). Use '
                '"thinking.type.adaptive" and "output_config.effort" to control thinking behavior.'
            )
        return f"thinking is not supported on this model ({model})"
    budget = thinking.get("budget_tokens")
    if budget is None:
        return "thinking.enabled.budget_tokens: Field required"
    if not isinstance(budget, int) or isinstance(budget, bool):
        return "thinking.enabled.budget_tokens: Input should be a valid integer"
    if budget < 1024:
        return "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024"
    if budget >= body["max_tokens"]:
        return (
            "`max_tokens` must be greater than `thinking.budget_tokens`. Please consult our "
            "documentation at https://docs.claude.com/en/docs/build-with-claude/"
            "extended-thinking#max-tokens-and-context-window-size"
        )
    return None


def _effort_problem(config: Any, model: str, efforts: tuple[str, ...]) -> str | None:
    if config is None:
        return None
    if not isinstance(config, dict):
        return "output_config: Input should be a valid dictionary"
    if "effort" not in config:
        return None
    effort = config["effort"]
    if effort not in EFFORTS:
        return "output_config.effort: Input should be 'low', 'medium', 'high', 'xhigh' or 'max'"
    if not efforts:
        return f"This model ({model}) does not support the effort parameter."
    if effort not in efforts:
        return f"output_config.effort: '{effort}' is not supported on this model ({model})"
    return None


def _unthought_tool_turn(messages: list[dict[str, Any]]) -> str | None:
    """The final assistant turn answered by tool results, when it does not begin with
    thinking (the API's words)."""
    if not messages or messages[-1].get("role") != "user":
        return None
    last = messages[-1]["content"]
    if not isinstance(last, list) or not any(b.get("type") == "tool_result" for b in last):
        return None
    index = len(messages) - 2
    if index < 0 or messages[index].get("role") != "assistant":
        return None
    content = messages[index]["content"]
    first = content[0] if isinstance(content, list) and content else {"type": "text"}
    if first.get("type") in ("thinking", "redacted_thinking"):
        return None
    return (
        f"messages.{index}.content.0.type: Expected `thinking` or `redacted_thinking`, but "
        f"found `{first.get('type')}`. When `thinking` is enabled, a final `assistant` message "
        "must start with a thinking block (preceeding the lastmost set of `tool_use` and "
        "`tool_result` blocks). We recommend you include thinking blocks from previous turns. "
        "To avoid this requirement, disable `thinking`."
    )
