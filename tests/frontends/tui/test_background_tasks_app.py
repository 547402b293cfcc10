"""Background tasks in the app: the status bar's count, `/tasks` (the output, stopping
one), Ctrl+B moving the running command there, Esc leaving tasks alone, and `/clear`
and the app's exit ending them all.

The commands tell the test their pid through a FIFO, so the test waits on that
event, never on time.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from agentcli.frontends.tui.screens.tasks import TasksScreen
from agentcli.tools.registry import builtin_tools
from tests.engine.scripted import Response, ScriptedProvider, text, tool_use
from tests.frontends.tui.helpers import PROCESS_WAIT_LIMIT_S, idle, make_app, send, wait_for
from tests.tools.test_bash import _is_gone


def tools() -> list:
    registry = builtin_tools()
    return [registry.get(name) for name in ("Bash", "TaskOutput", "TaskStop")]


def status(app) -> str:
    return str(app.status_bar.render())


def fifo(tmp_path: Path, name: str = "pid.fifo") -> Path:
    path = tmp_path / name
    os.mkfifo(path)
    return path


async def read_fifo(path: Path) -> list[int]:
    text_read = await asyncio.wait_for(asyncio.to_thread(path.read_text), PROCESS_WAIT_LIMIT_S)
    return [int(p) for p in text_read.split()]


def background(command: str, tool_id: str = "toolu_bg") -> Response:
    return Response([tool_use("Bash", {"command": command, "run_in_background": True}, tool_id)])


async def test_a_background_task_shows_in_the_bar_and_in_tasks_where_it_stops(tmp_path):
    pipe = fifo(tmp_path)
    provider = ScriptedProvider(
        background(f"echo serving on 8000; sleep 600 & echo $$ $! > {pipe}; wait"),
        Response([text("It runs.")]),
    )
    app = make_app(provider, tmp_path, tools())
    async with app.run_test(size=(120, 50)) as pilot:
        await send(pilot, "start the server")
        pids = await read_fifo(pipe)
        await idle(pilot, app)
        assert "1 background task" in status(app)

        await send(pilot, "/tasks")
        screen = await wait_for(
            pilot, lambda: isinstance(app.screen, TasksScreen) and app.screen, "the tasks screen"
        )
        (info,) = screen.tasks
        assert info.running
        await wait_for(
            pilot,
            lambda: "serving on 8000" in str(screen.query_one("#tasks-output").render()),
            "the output",
        )
        await pilot.press("k")
        await wait_for(pilot, lambda: not screen.tasks[0].running, "the stop", PROCESS_WAIT_LIMIT_S)
        assert all(_is_gone(pid) for pid in pids)
        assert "killed" in str(screen.query_one("#tasks-list").get_option_at_index(0).prompt)
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, TasksScreen), "closed")
        await wait_for(pilot, lambda: "background task" not in status(app), "the count gone")


async def test_tasks_with_none_says_how_one_starts(tmp_path):
    app = make_app(ScriptedProvider(), tmp_path, tools())
    async with app.run_test(size=(120, 50)) as pilot:
        await send(pilot, "/tasks")
        await wait_for(
            pilot,
            lambda: any(
                "run_in_background" in str(n.render()) for n in app.conversation.query("*")
            ),
            "the answer",
        )
        assert not isinstance(app.screen, TasksScreen)


async def test_esc_leaves_a_task_running_and_clear_ends_it(tmp_path):
    pipe = fifo(tmp_path)
    provider = ScriptedProvider(
        background(f"sleep 600 & echo $$ $! > {pipe}; wait"),
        Response([text("Started, and now a long answer"), text("never")], hang_after_blocks=1),
    )
    app = make_app(provider, tmp_path, tools())
    async with app.run_test(size=(120, 50)) as pilot:
        await send(pilot, "start it")
        pids = await read_fifo(pipe)
        await wait_for(pilot, lambda: app.conversation.answer is not None, "the stream")
        await pilot.press("escape")  # interrupts the turn, not the task
        await idle(pilot, app)
        assert not any(_is_gone(pid) for pid in pids)
        assert "1 background task" in status(app)

        await send(pilot, "/clear")
        await wait_for(
            pilot, lambda: all(_is_gone(pid) for pid in pids), "the end", PROCESS_WAIT_LIMIT_S
        )
        await wait_for(pilot, lambda: "background task" not in status(app), "the count gone")


async def test_ctrl_b_moves_the_running_command_to_the_background(tmp_path):
    pipe = fifo(tmp_path)
    provider = ScriptedProvider(
        Response([tool_use("Bash", {"command": f"echo $$ > {pipe}; sleep 600"}, "toolu_fg")]),
        Response([text("It goes on in the background.")]),
    )
    app = make_app(provider, tmp_path, tools())
    async with app.run_test(size=(120, 50)) as pilot:
        await send(pilot, "run the long thing")
        (pid,) = await read_fifo(pipe)
        await wait_for(pilot, lambda: app.conversation.pane("toolu_fg"), "the pane")
        await pilot.press("ctrl+b")
        await idle(pilot, app)

        assert app.conversation.last_answer_source == "It goes on in the background."
        result = repr(app.engine.messages[-2])
        assert "moved this command to the background" in result
        assert not _is_gone(pid)
        assert "1 background task" in status(app)
        board = app.engine.workspace.background_tasks()
        (info,) = board.tasks()
        assert info.running and info.id in result
    assert _is_gone(pid)  # the app's exit ended it


async def test_ctrl_b_with_nothing_running_says_so(tmp_path):
    app = make_app(ScriptedProvider(), tmp_path, tools())
    async with app.run_test(size=(120, 50)) as pilot:
        await pilot.press("ctrl+b")
        await pilot.pause()
        assert "No command is running" in status(app)
