"""Start-up work runs below the loop's CPU priority (frontends/tui/background.py), and
nothing else does: the shared executor and the commands the agent runs keep the
person's priority."""

from __future__ import annotations

import asyncio
import contextvars
import os
import subprocess
import sys
import threading

import pytest

from agentcli.frontends.tui.background import BACKGROUND_NICE, in_background
from agentcli.tools.registry import builtin_tools
from tests.engine.scripted import Response, ScriptedProvider, text, tool_use
from tests.frontends.tui.helpers import idle, make_app, send, wait_for

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="a thread's own priority is Linux's"
)


def this_threads_priority() -> tuple[int, int]:
    """(the calling thread's id, its nice value)."""
    tid = threading.get_native_id()
    return tid, os.getpriority(os.PRIO_PROCESS, tid)


def lowered(nice: int) -> int:
    return min(nice + BACKGROUND_NICE, 19)


async def test_background_work_runs_in_another_thread_at_a_lower_priority():
    loop_thread, nice = this_threads_priority()
    worker, worker_nice = await in_background(this_threads_priority)
    assert worker != loop_thread
    assert worker_nice == lowered(nice)
    assert this_threads_priority() == (loop_thread, nice)  # the loop's own is untouched


async def test_the_shared_executor_and_its_commands_keep_the_normal_priority():
    """A thread's priority cannot be raised again and what it starts inherits it: the
    background threads are their own, and `asyncio.to_thread` (tools) is not one."""
    _, nice = this_threads_priority()
    await in_background(this_threads_priority)
    for _ in range(4):  # every thread of the default executor, as many as get made
        _, shared_nice = await asyncio.to_thread(this_threads_priority)
        assert shared_nice == nice
    command = await asyncio.to_thread(subprocess.run, ["nice"], capture_output=True, text=True)
    assert command.stdout.strip() == str(nice)


async def test_a_failure_and_the_callers_context_reach_across():
    asked: contextvars.ContextVar[str] = contextvars.ContextVar("asked")
    asked.set("the caller's")
    assert await in_background(asked.get) == "the caller's"
    assert await in_background(lambda a, *, b: a + b, 1, b=2) == 3

    def fails() -> None:
        raise ValueError("the transcript is broken")

    with pytest.raises(ValueError, match="the transcript is broken"):
        await in_background(fails)


async def test_the_apps_start_up_is_lowered_and_the_agents_commands_are_not(tmp_path, monkeypatch):
    """The command modules load in the start-up's background thread; a Bash call the
    model makes afterwards runs its command at the person's own priority."""
    import agentcli.commands.registry as registry

    seen: list[tuple[int, int]] = []
    load = registry.load_command_modules

    def loading_commands():
        seen.append(this_threads_priority())
        return load()

    monkeypatch.setattr(registry, "load_command_modules", loading_commands)
    loop_thread, nice = this_threads_priority()
    provider = ScriptedProvider(
        Response([tool_use("Bash", {"command": "nice"}, "toolu_nice")]),
        Response([text("Done.")]),
    )
    app = make_app(provider, tmp_path, [builtin_tools().get("Bash")])
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: seen, "the command modules to load")
        [(loader, loader_nice)] = seen
        assert loader != loop_thread and loader_nice == lowered(nice)
        await send(pilot, "run nice")
        await wait_for(pilot, lambda: len(provider.requests) == 2, "the tool's result")
        await idle(pilot, app)
    result = provider.requests[1].messages[-1]["content"][0]
    assert result["tool_use_id"] == "toolu_nice"
    assert str(result["content"]).strip() == str(nice)
