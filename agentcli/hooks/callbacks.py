"""Hooks that are functions of a front end's client, beside the settings' shell commands.

The Agent SDK lets a program register Python functions as hooks; the SDK front
end (agentcli/frontends/sdk/) turns each into a `CallbackHook` whose `call` sends the
hook's input to the program and returns its answer. The answer is the JSON a
shell hook prints on stdout (`decision`, `continue`, `hookSpecificOutput`...),
so `run_callback` hands it on as the run of a command that exited 0 and
events.py reads both kinds the same way. A callback that fails or times out
is a non-blocking error, unless its matcher said `onFailure: "block"`: then
it blocks, like a command that exits 2.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from agentcli.config.hook_events import DEFAULT_TIMEOUT_S, HookEvent

if TYPE_CHECKING:  # loaded with the first callback (an SDK program's hooks)
    from agentcli.hooks.runner import HookRun

HookCallback = Callable[[dict[str, Any]], Awaitable[dict[str, Any]]]


@dataclass(frozen=True, slots=True)
class CallbackHook:
    """One function registered for one event (and what its matcher takes: tools, a
    trigger, an agent type... as config/hooks.py says)."""

    event: HookEvent
    name: str  # how notices name it: "SDK hook hook_0"
    call: HookCallback
    matcher: str = ""  # a regular expression over the whole subject; "" or "*": all
    timeout_s: float = DEFAULT_TIMEOUT_S
    block_on_failure: bool = False

    def __post_init__(self) -> None:
        from agentcli.config.hooks import HookMatcher

        HookMatcher(matcher=self.matcher, hooks=[])  # a bad regular expression raises here

    def applies(self, event: HookEvent, subject: str | None) -> bool:
        if event is not self.event:
            return False
        from agentcli.config.hooks import HookMatcher

        return HookMatcher(matcher=self.matcher, hooks=[]).matches(subject)


async def run_callback(hook: CallbackHook, payload: dict[str, Any]) -> HookRun:
    """Call the hook with the event's input; its answer reads as a command's stdout."""
    from agentcli.hooks.runner import HookRun

    try:
        output = await asyncio.wait_for(hook.call(payload), hook.timeout_s)
    except TimeoutError:
        return _failed(hook, "timed out", timed_out=True)
    except Exception as exc:
        return _failed(hook, f"failed: {exc}")
    return HookRun(hook.name, 0, stdout=json.dumps(output))


def _failed(hook: CallbackHook, what: str, *, timed_out: bool = False) -> HookRun:
    from agentcli.hooks.runner import HookRun

    if hook.block_on_failure:
        return HookRun(hook.name, 2, stderr=f"the hook {hook.name} {what}")
    if timed_out:
        return HookRun(hook.name, None, timed_out=True)
    return HookRun(hook.name, None, error=what)
