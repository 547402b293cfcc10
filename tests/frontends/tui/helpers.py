"""Building an AgentApp around the scripted provider, and waiting on conditions."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agentcli.frontends.tui.app import AgentApp
from agentcli.permissions.types import PermissionMode
from tests.engine.harness import make_engine

WAIT_LIMIT_S = 15.0
# For what waits on another process (an MCP server's start, a command): its start-up
# on two loaded cores can take far longer than the app's own work; the wait still ends
# as soon as the condition holds.
PROCESS_WAIT_LIMIT_S = 90.0


def make_app(
    provider: Any,
    root: Path,
    tools: list | None = None,
    *,
    mode: PermissionMode = PermissionMode.BYPASS,
    cwd: Path | None = None,
    guard_s: float = 0.0,
    **kwargs: Any,
) -> AgentApp:
    engine = make_engine(provider, tools or [], root, mode=mode, **kwargs.pop("engine_kw", {}))
    app = AgentApp(
        cwd=cwd or root,
        engine=engine,
        permission_guard_s=guard_s,
        remember_theme=kwargs.pop("remember_theme", False),
        **kwargs,
    )
    return app


async def wait_for(
    pilot: Any,
    condition: Callable[[], Any],
    what: str = "condition",
    limit_s: float = WAIT_LIMIT_S,
) -> Any:
    """Let the app run until `condition()` is truthy; fail (not hang) after `limit_s`."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + limit_s
    while True:
        value = condition()
        if value:
            return value
        if loop.time() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await pilot.pause(0.005)


def question_ready(app: AgentApp) -> Any:
    """The open question once a person could see and answer it: laid out on the screen
    and holding the focus. Until its `on_mount` focuses it, a key still goes to the
    (hidden) prompt; until its first layout it has no size, so nothing is drawn."""
    question = app.permission_prompt
    if question is None or not question.has_focus_within or not question.size.area:
        return None
    return question


async def click(pilot: Any, widget: Any) -> None:
    """Click `widget` where it is drawn once its place holds still, as a person would:
    right after a turn the conversation may still move it (the last answer's layout),
    and a click at its old place lands on something else."""
    drawn = held_still(lambda: widget.region if widget.region.area else None)
    await wait_for(pilot, drawn, "the widget to be drawn in one place")
    await pilot.click(widget)


def held_still(measure: Callable[[], Any]) -> Callable[[], Any]:
    """A condition for `wait_for`: `measure()` gave the same (truthy) value twice in a
    row, as what the app lays out does once it stops moving."""
    seen: list[Any] = [None]

    def check() -> Any:
        value = measure()
        same = value == seen[-1]
        seen.append(value)
        return value if same else None

    return check


async def type_text(pilot: Any, text: str) -> None:
    """Type `text` key by key (Pilot names each character's key: " " is "space")."""
    await pilot.press(*text)


async def send(pilot: Any, text: str) -> None:
    await type_text(pilot, text)
    await pilot.press("enter")


async def idle(pilot: Any, app: AgentApp) -> None:
    await wait_for(pilot, lambda: not app.busy, "the turn to end")
    await pilot.pause()


def texts(app: AgentApp, cls: type) -> list[str]:
    return [str(w.render()) for w in app.conversation.query(cls)]
