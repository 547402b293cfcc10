"""Callback hooks (a front end's client's functions) combine with shell hooks."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from agentcli.config.hook_events import HookEvent
from agentcli.config.hooks import HooksConfig
from agentcli.hooks.callbacks import CallbackHook
from agentcli.hooks.events import Hooks


def hooks_with(*callbacks: CallbackHook) -> Hooks:
    return Hooks(HooksConfig(), Path("/tmp"), session_id="s", callbacks=callbacks)


async def test_a_callback_sees_the_payload_and_can_deny():
    seen: list[dict[str, Any]] = []

    async def deny(payload: dict[str, Any]) -> dict[str, Any]:
        seen.append(payload)
        output = {"permissionDecision": "deny", "permissionDecisionReason": "frozen"}
        return {"hookSpecificOutput": output}

    hooks = hooks_with(CallbackHook(HookEvent.PRE_TOOL_USE, "SDK hook h", deny, matcher="Write"))

    assert hooks.has(HookEvent.PRE_TOOL_USE, "Write") and not hooks.has(
        HookEvent.PRE_TOOL_USE, "Read"
    )
    outcome = await hooks.pre_tool_use("Write", {"file_path": "/x"}, "toolu_1")

    assert (outcome.permission, outcome.permission_reason) == ("deny", "frozen")
    assert seen[0]["tool_use_id"] == "toolu_1" and seen[0]["session_id"] == "s"


async def test_a_failing_callback_is_a_notice_unless_it_blocks_on_failure():
    async def broken(payload: dict[str, Any]) -> dict[str, Any]:
        raise RuntimeError("the program crashed")

    async def slow(payload: dict[str, Any]) -> dict[str, Any]:
        await asyncio.sleep(60)
        return {}

    lenient = hooks_with(CallbackHook(HookEvent.STOP, "SDK hook a", broken))
    outcome = await lenient.stop(False)
    assert outcome.block is None and "the program crashed" in outcome.notices[0]

    strict = hooks_with(
        CallbackHook(HookEvent.STOP, "SDK hook b", slow, timeout_s=0.01, block_on_failure=True)
    )
    outcome = await strict.stop(False)
    assert outcome.block is not None and "timed out" in outcome.block


def test_a_bad_matcher_is_refused():
    async def any_hook(payload: dict[str, Any]) -> dict[str, Any]:
        return {}

    with pytest.raises(ValueError, match="regular expression"):
        CallbackHook(HookEvent.PRE_TOOL_USE, "SDK hook c", any_hook, matcher="(")
