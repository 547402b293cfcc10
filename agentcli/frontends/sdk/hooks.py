"""The SDK client's Python hooks: `initialize`'s `hooks`, as callback hooks.

The client sends, for each event, matchers with the ids of its callbacks;
each id becomes a `CallbackHook` (hooks/callbacks.py) that sends a
`hook_callback` request with the hook's input and reads the reply as a shell
hook's JSON output. Events agentcli does not have are reported and skipped.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from agentcli.config.hook_events import DEFAULT_TIMEOUT_S, HookEvent
from agentcli.frontends.sdk.channel import ControlChannel
from agentcli.hooks.callbacks import CallbackHook


class HookConfigError(ValueError):
    """`initialize`'s hooks could not be read; the message says where."""


def callback_hooks(config: Any, channel: ControlChannel) -> tuple[list[CallbackHook], list[str]]:
    """The hooks of `initialize`, and notes for what was skipped."""
    if config is None:
        return [], []
    if not isinstance(config, dict):
        raise HookConfigError("initialize: hooks must be an object of events")
    hooks: list[CallbackHook] = []
    notes: list[str] = []
    for name, matchers in config.items():
        try:
            event = HookEvent(name)
        except ValueError:
            notes.append(f"the hook event {name} is not one agentcli has; its callbacks never run")
            continue
        for matcher in matchers or []:
            hooks += _matcher_hooks(event, matcher, channel)
    return hooks, notes


def _matcher_hooks(event: HookEvent, matcher: Any, channel: ControlChannel) -> list[CallbackHook]:
    if not isinstance(matcher, dict) or not isinstance(matcher.get("hookCallbackIds"), list):
        raise HookConfigError(f"initialize: a {event.value} matcher has no hookCallbackIds")
    pattern = matcher.get("matcher") or ""
    timeout = matcher.get("timeout")
    try:
        return [
            CallbackHook(
                event,
                f"SDK hook {callback_id}",
                partial(_call, channel, str(callback_id)),
                matcher=str(pattern),
                timeout_s=float(timeout) if timeout else DEFAULT_TIMEOUT_S,
                block_on_failure=matcher.get("onFailure") not in (None, "continue"),
            )
            for callback_id in matcher["hookCallbackIds"]
        ]
    except ValueError as exc:
        raise HookConfigError(f"initialize: the {event.value} matcher {pattern!r}: {exc}") from None


async def _call(
    channel: ControlChannel, callback_id: str, payload: dict[str, Any]
) -> dict[str, Any]:
    return await channel.request(
        {
            "subtype": "hook_callback",
            "callback_id": callback_id,
            "input": payload,
            "tool_use_id": payload.get("tool_use_id"),
        }
    )
