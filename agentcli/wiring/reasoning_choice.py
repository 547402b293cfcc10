"""The session's reasoning ask (core/reasoning.py) from the command line, the
environment and the settings.

Effort: `--effort`, then `CLAUDE_CODE_EFFORT_LEVEL` (Claude Code's variable), then
the `effortLevel` setting (its highest trusted layer: wiring/layered.py). Thinking
budget: `--max-thinking-tokens`, then `MAX_THINKING_TOKENS` (Claude Code's). A
malformed variable is named in the settings' problems (shown at start) and not used.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from agentcli.config.settings import Settings
from agentcli.core.reasoning import (
    EFFORT_LEVELS,
    REPLY_MAX_TOKENS,
    Effort,
    Reasoning,
    budget_problem,
    parse_effort,
)
from agentcli.wiring.layered import layered

EFFORT_VARIABLE = "CLAUDE_CODE_EFFORT_LEVEL"
BUDGET_VARIABLE = "MAX_THINKING_TOKENS"


def reasoning_of(
    effort: str | None,
    budget: int | None,
    settings: Settings,
    env: Mapping[str, str] | None = None,
) -> Reasoning:
    """`effort`, `budget`: the command line's (None: not given)."""
    env = os.environ if env is None else env
    return Reasoning(
        effort=_effort(effort, settings, env), budget=_budget(budget, settings.problems, env)
    )


def _effort(given: str | None, settings: Settings, env: Mapping[str, str]) -> Effort | None:
    if given is not None:
        return parse_effort(given)
    raw = env.get(EFFORT_VARIABLE, "").strip()
    if raw:
        level = parse_effort(raw)
        if level is not None:
            return level
        settings.problems.append(
            f"{EFFORT_VARIABLE}={raw!r} is not one of {', '.join(EFFORT_LEVELS)}; not used"
        )
    configured = layered(settings, "effortLevel")
    return parse_effort(str(configured.value)) if configured is not None else None


def _budget(given: int | None, problems: list[str], env: Mapping[str, str]) -> int | None:
    if given is not None:
        return given
    raw = env.get(BUDGET_VARIABLE, "").strip()
    if not raw:
        return None
    if not (raw.isascii() and raw.isdigit()):
        problems.append(f"{BUDGET_VARIABLE}={raw!r} is not a whole number of tokens; not used")
        return None
    problem = budget_problem(int(raw), REPLY_MAX_TOKENS)
    if problem is not None:
        problems.append(f"{BUDGET_VARIABLE}={raw}: {problem}; not used")
        return None
    return int(raw)
