"""What is known of each model: its context window, its prices, how it thinks.

Anthropic's models are known (core/pricing.py, engine/windows.py). A model
named `provider/model` of another vendor is known only through its
provider's `models` settings (config/provider_settings.py); without them
its window gets a small, safe default and its cost is unknown, which the
person is shown rather than a made-up figure.

How a model is asked to think is known here too, in one place: for Claude,
by its name (`claude_thinking`: adaptive thinking with `output_config.effort`
on 4.6 and later, a `budget_tokens` budget before, nothing before 3.7); for
another vendor's model, the OpenAI `reasoning_effort` values it takes
(`openai_efforts`: its `reasoningEfforts` setting, else OpenAI's reasoning
models by name, else none: a server that does not know the field may refuse it).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from agentcli.core.price import Price
from agentcli.core.reasoning import Effort


@dataclass(frozen=True, slots=True)
class ModelSpec:
    """One configured model; None: not given in the settings."""

    context_window: int | None = None
    price: Price | None = None
    # The `reasoning_effort` values an OpenAI-style model takes; () none, None: by name.
    reasoning_efforts: tuple[str, ...] | None = None


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


@dataclass(frozen=True, slots=True)
class ClaudeThinking:
    """How a Claude model takes thinking: `adaptive` (`thinking: {"type": "adaptive"}`),
    `budget` (`{"type": "enabled", "budget_tokens": N}`), and the `output_config.effort`
    levels it takes (none: the field is refused)."""

    adaptive: bool
    budget: bool
    efforts: tuple[Effort, ...]

    @property
    def thinks(self) -> bool:
        return self.adaptive or self.budget


_ALL_EFFORTS: tuple[Effort, ...] = ("low", "medium", "high", "xhigh", "max")
ADAPTIVE_ONLY = ClaudeThinking(adaptive=True, budget=False, efforts=_ALL_EFFORTS)
# 4.6: adaptive and effort (no xhigh); a budget still taken, deprecated.
ADAPTIVE_4_6 = ClaudeThinking(adaptive=True, budget=True, efforts=("low", "medium", "high", "max"))
# Opus 4.5: the first with effort; thinking only by budget.
BUDGET_AND_EFFORT = ClaudeThinking(adaptive=False, budget=True, efforts=("low", "medium", "high"))
BUDGET_ONLY = ClaudeThinking(adaptive=False, budget=True, efforts=())
NO_THINKING = ClaudeThinking(adaptive=False, budget=False, efforts=())
# Families named without a version that only think adaptively.
_ADAPTIVE_FAMILIES = ("mythos", "fable")
_FAMILIES = ("opus", "sonnet", "haiku", "mythos", "fable")


def claude_thinking(model: str) -> ClaudeThinking:
    """How the Claude model `model` takes thinking, from its name (`claude-opus-4-6`,
    `claude-3-7-sonnet-20250219`, `claude-sonnet-5-5[1m]`). A name with no version we
    can read is taken as a current model (adaptive)."""
    words = model.lower().removesuffix("[1m]").split("-")
    family = next((word for word in words if word in _FAMILIES), "")
    numbers = [int(word) for word in words if word.isdigit() and len(word) < 8]
    if family in _ADAPTIVE_FAMILIES or not numbers:
        return ADAPTIVE_ONLY
    version = (numbers[0], numbers[1] if len(numbers) > 1 else 0)
    if version >= (4, 7):
        return ADAPTIVE_ONLY
    if version == (4, 6):
        return ADAPTIVE_4_6
    if version == (4, 5) and family == "opus":
        return BUDGET_AND_EFFORT
    if version >= (3, 7):
        return BUDGET_ONLY
    return NO_THINKING


# OpenAI's `reasoning_effort` values, least first.
OPENAI_EFFORTS = ("none", "minimal", "low", "medium", "high", "xhigh")
_OPENAI_REASONING = ("low", "medium", "high")


def openai_efforts(model: str, spec: ModelSpec) -> tuple[str, ...]:
    """The `reasoning_effort` values the OpenAI-style model `model` (its provider's own
    name for it) takes: its `reasoningEfforts` setting, else OpenAI's reasoning models
    (o1, o3, o4-mini, gpt-5..., gpt-oss) by name, else none."""
    if spec.reasoning_efforts is not None:
        return spec.reasoning_efforts
    name = model.lower().rpartition("/")[2]
    reasoning = (len(name) > 1 and name[0] == "o" and name[1].isdigit()) or name.startswith(
        ("gpt-5", "gpt-oss")
    )
    return _OPENAI_REASONING if reasoning else ()


def openai_effort(effort: Effort, offered: tuple[str, ...]) -> str | None:
    """The `reasoning_effort` to send for `effort`: the same word (`max` is `xhigh`),
    else the highest offered value below it, else the lowest offered; None: none."""
    if not offered:
        return None
    wanted = "xhigh" if effort == "max" else effort
    if wanted in offered:
        return wanted
    rank = OPENAI_EFFORTS.index(wanted)
    known = [value for value in offered if value in OPENAI_EFFORTS]
    below = [value for value in known if OPENAI_EFFORTS.index(value) < rank]
    if below:
        return max(below, key=OPENAI_EFFORTS.index)
    return min(known, key=OPENAI_EFFORTS.index) if known else None


def display_name(model: str) -> str:
    """A Claude model's name as people write it (`claude-sonnet-5-5` is "Sonnet 5.5",
    `claude-3-7-sonnet-20250219` "Sonnet 3.7", a `[1m]` one "... (1M context)");
    any other name as it is."""
    wide = model.lower().endswith("[1m]")
    words = model.lower().removesuffix("[1m]").split("-")
    family = next((word for word in words if word in _FAMILIES), None)
    if not model.lower().startswith("claude-") or family is None:
        return model
    numbers = [word for word in words if word.isdigit() and len(word) < 8][:2]
    name = " ".join([family.capitalize(), ".".join(numbers)]).strip()
    return f"{name} (1M context)" if wide else name
