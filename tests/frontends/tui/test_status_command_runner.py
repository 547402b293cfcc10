"""The status-line runner on its own (frontends/tui/status_command.py): real shell
commands, the throttle, failures said once, output that is not a status line."""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rich.text import Text

from agentcli.frontends.tui.status_command import (
    MAX_LINE_CHARS,
    ContextWindow,
    StatusCommand,
    StatusInput,
    first_line,
)
from tests.support.escaped_children import escaping_child

# How long a test waits for what it waits on before it fails: a bound, not a timing. As long
# as the scripts' own limit, since a Python start and its output on a loaded 2-core CI
# machine took more than 15 s once.
WAIT_LIMIT_S = 120.0


def status(session: str = "s1", cost: float | None = 0.5, duration_ms: int = 0) -> StatusInput:
    return StatusInput(
        session_id=session,
        transcript_path="/t/s1.jsonl",
        cwd="/work/p",
        project_dir="/work/p",
        model_id="claude-sonnet-5-5",
        model_display_name="Sonnet 5.5",
        version="0.1.0",
        total_cost_usd=cost,
        context_window=ContextWindow(size=200_000, input_tokens=1000, cache_read_input_tokens=500),
        effort="low",
        total_duration_ms=duration_ms,
    )


async def until(condition: Callable[[], Any], what: str, limit_s: float = WAIT_LIMIT_S) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + limit_s
    while not condition():
        if loop.time() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.005)


class Screen:
    def __init__(self) -> None:
        self.lines: list[str] = []
        self.notes: list[str] = []

    def show(self, line: Text) -> None:
        self.lines.append(line.plain)


def runner(tmp_path: Path, script: str, screen: Screen, **kw: Any) -> StatusCommand:
    """The runner on a Python script. Its time limit is generous unless a test sets its
    own: a Python start on a loaded CI machine can pass the 5 s a status line gets, and
    these tests are about what the output becomes, not the limit."""
    (tmp_path / "s.py").write_text(script, encoding="utf-8")
    kw.setdefault("timeout_s", 120.0)
    return StatusCommand(
        f"{sys.executable} {tmp_path / 's.py'}", tmp_path, screen.show, screen.notes.append, **kw
    )


ECHO_SESSION = "import json, sys; print(json.load(sys.stdin)['session_id'])"


def test_the_payload_has_claude_codes_fields():
    payload = status().payload()

    assert payload["model"] == {"id": "claude-sonnet-5-5", "display_name": "Sonnet 5.5"}
    assert payload["workspace"] == {"current_dir": "/work/p", "project_dir": "/work/p"}
    assert payload["cost"]["total_cost_usd"] == 0.5
    window = payload["context_window"]
    assert window["context_window_size"] == 200_000
    assert window["used_percentage"] == 0.8 and window["remaining_percentage"] == 99.2
    assert {"session_id", "transcript_path", "cwd", "version"} <= set(payload)
    json.dumps(payload)  # all of it JSON


def test_only_the_clock_changing_is_no_change():
    assert status(duration_ms=1) == status(duration_ms=99_999)
    assert status(cost=0.5) != status(cost=0.6)


def test_the_first_line_keeps_colours_and_drops_every_other_control():
    shown = first_line(b"\x1b]52;c;ZXZpbA==\x07ok\x1b[32m green\x1b[0m\x1b[H\x1b[2K!\nnext\n")

    assert shown.plain == "ok green!"
    assert [shown.plain[s.start : s.end] for s in shown.spans] == [" green"]


def test_a_huge_line_is_cut():
    assert len(first_line(b"x" * 100_000).plain) == MAX_LINE_CHARS


async def test_changes_while_it_runs_are_one_more_run_with_the_latest(tmp_path):
    screen = Screen()
    command = runner(tmp_path, ECHO_SESSION, screen)

    command.update(status("first"))
    for n in range(5):
        command.update(status(f"later-{n}"))
    await until(lambda: screen.lines[-1:] == ["later-4"], "the latest input's line")

    assert command.runs == 2
    assert screen.lines == ["first", "later-4"]
    await command.aclose()


async def test_a_failing_command_blanks_its_line_and_is_said_once(tmp_path):
    screen = Screen()
    command = runner(tmp_path, "import sys; print('half'); sys.exit(3)", screen, min_gap_s=0)

    command.update(status("a"))
    await until(lambda: command.runs == 1 and not command.running, "the first run")
    command.update(status("b"))
    await until(lambda: command.runs == 2 and not command.running, "the second run")

    assert screen.lines == ["", ""]
    assert len(screen.notes) == 1 and "it exited with status 3" in screen.notes[0]


async def test_a_command_that_is_not_there_is_a_note_not_a_crash(tmp_path):
    screen = Screen()
    command = StatusCommand(
        "no-such-status-command-here", tmp_path, screen.show, screen.notes.append
    )

    command.update(status())
    await until(lambda: screen.notes, "the note")

    assert "exited with status 127" in screen.notes[0]


async def test_endless_output_is_read_up_to_a_bound(tmp_path):
    screen = Screen()
    command = runner(tmp_path, "import sys\nwhile True: sys.stdout.write('y' * 65536)", screen)

    command.update(status())
    await until(lambda: not command.running and command.runs == 1, "the run's end")

    assert screen.lines == ["y" * MAX_LINE_CHARS] and screen.notes == []
    await command.aclose()


async def test_closing_stops_a_running_command(tmp_path):
    screen = Screen()
    command = runner(tmp_path, "import sys, time; sys.stdin.read(); time.sleep(600)", screen)

    command.update(status())
    await until(lambda: command.running, "the command to start")
    await command.aclose()

    assert not command.running and screen.lines == [] and screen.notes == []


# A command whose child escapes its process group keeps the output pipe open after the
# command is gone; the runner still ends each run within its limit (asyncio's
# `Process.wait()` also waits for the pipes, so it would wait for that child). The wait is
# half the test's own timeout: a hang fails here, with a message, not at pytest's limit.
HANG_LIMIT_S = 60.0


async def test_a_line_printed_before_exiting_shows_though_a_child_keeps_the_pipe(
    tmp_path, escaped_children
):
    screen = Screen()
    script = escaping_child(escaped_children) + "print('ready', flush=True)\n"
    command = runner(tmp_path, script, screen, timeout_s=HANG_LIMIT_S * 2)

    command.update(status())
    await until(lambda: command.runs == 1 and not command.running, "the run's end", HANG_LIMIT_S)

    assert screen.lines == ["ready"] and screen.notes == []
    await command.aclose()


async def test_a_command_past_its_limit_is_stopped_though_a_child_keeps_the_pipe(
    tmp_path, escaped_children
):
    screen = Screen()
    script = escaping_child(escaped_children) + "import time; time.sleep(600)\n"
    command = runner(tmp_path, script, screen, timeout_s=2)

    command.update(status())
    await until(lambda: command.runs == 1 and not command.running, "the run's end", HANG_LIMIT_S)

    assert screen.lines == []
    assert len(screen.notes) == 1 and "did not finish within 2 s" in screen.notes[0]
    await command.aclose()


async def test_output_past_the_bound_is_cut_though_a_child_keeps_the_pipe(
    tmp_path, escaped_children
):
    screen = Screen()
    script = (
        escaping_child(escaped_children)
        + "import sys, time\nsys.stdout.write('y' * 4_000_000); sys.stdout.flush(); time.sleep(600)\n"
    )
    command = runner(tmp_path, script, screen)

    command.update(status())
    await until(lambda: command.runs == 1 and not command.running, "the run's end", HANG_LIMIT_S)

    assert screen.lines == ["y" * MAX_LINE_CHARS] and screen.notes == []
    await command.aclose()


async def test_closing_ends_though_a_child_keeps_the_pipe(tmp_path, escaped_children):
    screen = Screen()
    script = escaping_child(escaped_children) + "import time; time.sleep(600)\n"
    command = runner(tmp_path, script, screen)

    command.update(status())
    await until(lambda: escaped_children.exists(), "the child to start", HANG_LIMIT_S)
    await asyncio.wait_for(command.aclose(), HANG_LIMIT_S)

    assert not command.running and screen.lines == []
