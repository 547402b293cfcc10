"""The Stop hook at the loop's `completed` branch, with a guard against endless loops.

The hook is told the text of the model's last answer (`last_assistant_message`).
In a subagent's loop the same place runs SubagentStop (agents/hooks.py).

Exit 2 (or `decision: "block"`) means "do not stop yet": its message goes to
the model as a user message and the loop continues. The hook is told
`stop_hook_active: true` when the model is already continuing because of a
Stop hook, so a careful hook can let go; a careless one is cut off after
MAX_CONTINUATIONS in a row, ending with `stop_hook_prevented`.
`continue: false` ends the run with `hook_stopped`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from agentcli.hooks.events import Hooks

MAX_CONTINUATIONS = 8


@dataclass
class StopVerdict:
    feedback: str | None = None  # continue the loop with this user message
    end: str | None = None  # "hook_stopped" | "stop_hook_prevented"
    message: str | None = None
    notices: list[str] = field(default_factory=list)


@dataclass
class StopGuard:
    """One per run of the loop: counts continuations forced by Stop hooks."""

    continuations: int = 0

    async def check(self, hooks: Hooks, last_assistant_message: str = "") -> StopVerdict:
        """Run the Stop hooks (a subagent's engine: SubagentStop, agents/hooks.py)."""
        outcome = await hooks.stop(self.continuations > 0, last_assistant_message)
        verdict = StopVerdict(notices=list(outcome.notices))
        if outcome.stop is not None:
            verdict.end, verdict.message = "hook_stopped", outcome.stop
        elif outcome.block is not None:
            if self.continuations >= MAX_CONTINUATIONS:
                verdict.end = "stop_hook_prevented"
                verdict.message = (
                    f"a {hooks.stop_event.value} hook blocked stopping "
                    f"{self.continuations + 1} times in a row; "
                    "the agent stopped to avoid an endless loop"
                )
            else:
                self.continuations += 1
                verdict.feedback = f"{hooks.stop_event.value} hook feedback:\n{outcome.block}"
        return verdict
