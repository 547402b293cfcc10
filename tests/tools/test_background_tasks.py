"""Background shells: Bash `run_in_background`, TaskOutput/TaskStop and their old names,
the session's registry, the bounded private output files, Ctrl+B's hand-over, and that
no task outlives its session (the stop, the end of the session, a crash).

The commands tell the test their pid through a FIFO, so the test waits on that
event, never on time.
"""

from __future__ import annotations

import asyncio
import os
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from agentcli.config.rules import parse_tool_list
from agentcli.core.abort import AbortSignal
from agentcli.permissions.policy import PermissionPolicy, decide, only_reads
from agentcli.permissions.types import PermissionMode
from agentcli.tools.background.output_file import BoundedOutput, OutputCursor
from agentcli.tools.background.tools import (
    BashOutputInput,
    BashOutputTool,
    KillShellInput,
    KillShellTool,
    TaskOutputInput,
    TaskOutputTool,
    TaskStopInput,
    TaskStopTool,
)
from agentcli.tools.base import ToolContext, ToolError, Workspace
from agentcli.tools.bash import BashInput, BashTool
from tests.tools.test_bash import Recorder, _is_gone


@pytest.fixture
def workspace(tmp_path: Path) -> Workspace:
    root = tmp_path / "project"
    root.mkdir()
    return Workspace(root, scratch_dir=tmp_path / "scratch")


@pytest.fixture
async def ended(workspace: Workspace):
    """The workspace; whatever a test left running is stopped after it."""
    yield workspace
    if workspace.background is not None:
        await workspace.background.stop_all()


def ctx(ws: Workspace, report=None) -> ToolContext:
    return ToolContext(ws, AbortSignal(), report=report or (lambda _output: None))


async def start(ws: Workspace, command: str, **kw) -> str:
    """Start `command` in the background; its task id."""
    result = await BashTool(kill_grace=0.5).run(
        BashInput(command=command, run_in_background=True, **kw), ctx(ws)
    )
    assert not result.is_error, result.content
    text = str(result.content)
    (task_id,) = [t for t in ws.background_tasks().ids() if t in text]
    return task_id


async def output(ws: Workspace, task_id: str, **kw) -> str:
    result = await TaskOutputTool().run(TaskOutputInput(task_id=task_id, **kw), ctx(ws))
    assert not result.is_error
    return str(result.content)


def fifo(tmp_path: Path, name: str = "pid.fifo") -> Path:
    path = tmp_path / name
    os.mkfifo(path)
    return path


async def read_fifo(path: Path) -> str:
    """What the command writes to the FIFO (blocks until it does)."""
    return await asyncio.wait_for(asyncio.to_thread(path.read_text), 30)


# -- starting, reading, stopping ------------------------------------------------------


async def test_a_background_command_returns_at_once_and_keeps_running(ended, tmp_path):
    ws = ended
    pipe = fifo(tmp_path)
    task_id = await start(ws, f"echo started; echo $$ > {pipe}; sleep 600")
    pid = int(await read_fifo(pipe))
    assert not _is_gone(pid)
    task = ws.background_tasks().get(task_id)
    assert task is not None and not task.done and task.pid == pid

    first = await output(ws, task_id, block=False)
    assert "<status>running</status>" in first and "started" in first
    assert "<exit_code>" not in first
    again = await output(ws, task_id, block=False)
    assert "(no new output)" in again  # only what is new since the last read


async def test_the_result_names_the_id_and_where_the_output_goes(ended):
    ws = ended
    result = await BashTool().run(BashInput(command="true", run_in_background=True), ctx(ws))
    (task_id,) = ws.background_tasks().ids()
    task = ws.background_tasks().get(task_id)
    assert task is not None
    assert task_id in str(result.content) and str(task.output.path) in str(result.content)


async def test_output_comes_in_parts_and_the_end_gives_the_exit_code(ended, tmp_path):
    ws = ended
    go = fifo(tmp_path, "go.fifo")
    task_id = await start(ws, f"echo one; read line < {go}; echo two; exit 3")
    task = ws.background_tasks().get(task_id)
    assert task is not None
    waited = await output(ws, task_id, block=True, timeout=50)
    assert "<retrieval_status>timeout</retrieval_status>" in waited
    await asyncio.to_thread(go.write_text, "go\n")
    done = await output(ws, task_id, block=True, timeout=30_000)
    assert "<retrieval_status>success</retrieval_status>" in done
    assert "<status>failed</status>" in done and "<exit_code>3</exit_code>" in done
    assert "two" in done and "one" not in done


async def test_a_finished_command_reads_completed_with_exit_code_0(ended):
    ws = ended
    task_id = await start(ws, "echo fine")
    done = await output(ws, task_id)  # block defaults to true
    assert "<status>completed</status>" in done and "<exit_code>0</exit_code>" in done
    assert "fine" in done


async def test_task_stop_ends_the_whole_process_group(ended, tmp_path):
    ws = ended
    pipe = fifo(tmp_path)
    task_id = await start(ws, f"sleep 600 & echo $$ $! > {pipe}; wait")
    shell_pid, child_pid = map(int, (await read_fifo(pipe)).split())

    result = await TaskStopTool().run(TaskStopInput(task_id=task_id), ctx(ws))
    assert not result.is_error and task_id in str(result.content)
    assert _is_gone(shell_pid) and _is_gone(child_pid)
    assert "<status>killed</status>" in await output(ws, task_id, block=False)

    again = TaskStopTool().run(TaskStopInput(task_id=task_id), ctx(ws))
    with pytest.raises(ToolError, match="not running"):
        await again


async def test_what_the_shell_leaves_running_goes_when_it_exits(ended, tmp_path):
    """As in the foreground: no process runs that no task shows."""
    ws = ended
    pipe = fifo(tmp_path)
    task_id = await start(ws, f"sleep 600 & echo $! > {pipe}")
    child = int(await read_fifo(pipe))
    assert "<status>completed</status>" in await output(ws, task_id)
    assert _is_gone(child)


async def test_the_end_of_the_session_stops_every_task(ended, tmp_path):
    ws = ended
    pids = []
    for n in range(3):
        pipe = fifo(tmp_path, f"{n}.fifo")
        await start(ws, f"sleep 600 & echo $$ $! > {pipe}; wait")
        pids += map(int, (await read_fifo(pipe)).split())
    assert ws.background_tasks().running_count() == 3

    assert await ws.background_tasks().stop_all() == 3
    assert all(_is_gone(pid) for pid in pids)
    assert ws.background_tasks().running_count() == 0
    assert {info.status for info in ws.background_tasks().tasks()} == {"killed"}


async def test_the_engine_ends_its_tasks_when_the_session_ends(ended, tmp_path):
    from agentcli.engine.parts import EngineParts
    from agentcli.engine.query_engine import QueryEngine
    from agentcli.permissions.gate import PermissionGate
    from agentcli.tools.registry import ToolRegistry

    ws = ended
    engine = QueryEngine(
        EngineParts(
            provider=None,
            tools=ToolRegistry([]),
            gate=PermissionGate(PermissionPolicy(ws)),
            workspace=ws,
        )
    )
    pipe = fifo(tmp_path)
    await start(ws, f"echo $$ > {pipe}; sleep 600")
    pid = int(await read_fifo(pipe))
    await engine.end_session("clear")
    assert _is_gone(pid)


# -- ids are the session's ---------------------------------------------------------------


@pytest.mark.parametrize(
    "task_id", ["../../etc/passwd", "/etc/passwd", "tasks/x.output", "", "b1", "b1\x00"]
)
async def test_an_id_that_is_not_this_sessions_is_no_task(ended, task_id):
    ws = ended
    known = await start(ws, "true")
    for call in (
        TaskOutputTool().run(TaskOutputInput(task_id=task_id), ctx(ws)),
        TaskStopTool().run(TaskStopInput(task_id=task_id), ctx(ws)),
        BashOutputTool().run(BashOutputInput(bash_id=task_id), ctx(ws)),
        KillShellTool().run(KillShellInput(shell_id=task_id), ctx(ws)),
    ):
        with pytest.raises(ToolError, match=f"No background task with ID .*{known}"):
            await call


async def test_another_sessions_task_is_not_found(ended, tmp_path):
    ws = ended
    other = Workspace(ws.root, scratch_dir=tmp_path / "other-scratch")
    pipe = fifo(tmp_path)
    theirs = await start(other, f"echo $$ > {pipe}; sleep 600")
    pid = int(await read_fifo(pipe))
    try:
        with pytest.raises(ToolError, match="None has been started"):
            await TaskStopTool().run(TaskStopInput(task_id=theirs), ctx(ws))
        assert not _is_gone(pid)
    finally:
        await other.background_tasks().stop_all()


# -- the old names ---------------------------------------------------------------------


async def test_bash_output_never_waits_and_filters_lines(ended, tmp_path):
    ws = ended
    pipe = fifo(tmp_path)
    task_id = await start(ws, f"printf 'ok 1\\nFAIL 2\\nok 3\\n'; echo x > {pipe}; sleep 600")
    await read_fifo(pipe)
    result = await BashOutputTool().run(BashOutputInput(bash_id=task_id, filter="^ok"), ctx(ws))
    text = str(result.content)
    assert "<status>running</status>" in text
    assert "ok 1\nok 3" in text and "FAIL" not in text
    rest = await BashOutputTool().run(BashOutputInput(bash_id=task_id), ctx(ws))
    assert "FAIL" not in str(rest.content)  # the lines that did not match are consumed


async def test_bash_output_refuses_a_bad_filter(ended):
    ws = ended
    task_id = await start(ws, "true")
    with pytest.raises(ToolError, match="not a valid regular expression"):
        await BashOutputTool().run(BashOutputInput(bash_id=task_id, filter="(unclosed"), ctx(ws))


async def test_kill_shell_stops_like_task_stop(ended, tmp_path):
    ws = ended
    pipe = fifo(tmp_path)
    task_id = await start(ws, f"echo $$ > {pipe}; sleep 600")
    pid = int(await read_fifo(pipe))
    result = await KillShellTool().run(KillShellInput(shell_id=task_id), ctx(ws))
    assert not result.is_error and _is_gone(pid)


def test_task_output_takes_claude_codes_fields_and_bounds():
    assert TaskOutputInput(task_id="x").block is True
    assert TaskOutputInput(task_id="x").timeout == 30_000
    with pytest.raises(ValueError):
        TaskOutputInput(task_id="x", timeout=600_001)
    with pytest.raises(ValueError):
        TaskOutputInput(task_id="x", timeout=-1)
    with pytest.raises(ValueError):
        TaskStopInput(task_id="x", shell_id="y")  # type: ignore[call-arg]


# -- permission ----------------------------------------------------------------------------


def _policy(ws: Workspace, **rules: list[str]) -> PermissionPolicy:
    parsed = {name: parse_tool_list(value, "test", ws.root) for name, value in rules.items()}
    return PermissionPolicy(ws, PermissionMode.DEFAULT, **parsed)


@pytest.mark.parametrize("command", ["rm -rf build", "npm run dev", "ls", "cat /etc/passwd"])
def test_a_background_command_is_judged_as_in_the_foreground(workspace, command):
    bash = BashTool(read_only_lines=only_reads)
    for policy in (
        _policy(workspace),
        _policy(workspace, allow=["Bash(npm run:*)"]),
        _policy(workspace, deny=["Bash(rm:*)"]),
        _policy(workspace, ask=["Bash(ls:*)"]),
    ):
        front = decide(policy, bash, BashInput(command=command))
        back = decide(policy, bash, BashInput(command=command, run_in_background=True))
        assert (back.behavior, back.reason) == (front.behavior, front.reason)


def test_reading_and_stopping_tasks_never_ask(workspace):
    policy = _policy(workspace)
    for tool, inp in (
        (TaskOutputTool(), TaskOutputInput(task_id="b1")),
        (TaskStopTool(), TaskStopInput(task_id="b1")),
        (BashOutputTool(), BashOutputInput(bash_id="b1")),
        (KillShellTool(), KillShellInput(shell_id="b1")),
    ):
        assert decide(policy, tool, inp).behavior == "allow"


# -- the output file ---------------------------------------------------------------------


async def test_the_output_file_is_private(ended):
    ws = ended
    task_id = await start(ws, "echo secret")
    await output(ws, task_id)
    task = ws.background_tasks().get(task_id)
    assert task is not None
    assert stat.S_IMODE(task.output.path.stat().st_mode) == 0o600
    assert stat.S_IMODE(task.output.path.parent.stat().st_mode) == 0o700


async def test_a_long_output_keeps_its_tail_in_a_bounded_file_and_says_what_went(ended):
    ws = ended
    ws.background_tasks().max_output_bytes = 4096
    task_id = await start(ws, "for i in $(seq 1 5000); do echo line $i; done; echo the-end")
    done = await output(ws, task_id)
    task = ws.background_tasks().get(task_id)
    assert task is not None
    held = task.output.path.read_text()
    assert len(held.encode()) <= 4096 + 200  # the limit and the note's line
    assert held.startswith("[agentcli: the first ") and "bytes of this output were dropped" in held
    assert held.rstrip().endswith("the-end")
    assert "were dropped before this read" in done and "the-end" in done
    assert "line 1\n" not in done


def test_a_character_cut_between_two_writes_reads_whole(tmp_path):
    out = BoundedOutput(tmp_path / "o", 1000)
    cursor = OutputCursor(out)
    data = "é€".encode()
    out.write(data[:3])
    first = cursor.read_new()
    out.write(data[3:])
    second = cursor.read_new(final=True)
    assert first.text + second.text == "é€" and "\ufffd" not in first.text + second.text


def test_the_file_keeps_the_newest_bytes_and_counts_the_rest(tmp_path):
    out = BoundedOutput(tmp_path / "o", 100)
    cursor = OutputCursor(out)
    for n in range(50):
        out.write(f"{n:03d}\n".encode())
    got = cursor.read_new()
    assert got.text.endswith("049\n")
    assert got.missed_bytes == out.dropped > 0
    assert out.written == 200
    assert (tmp_path / "o").stat().st_size <= 100 + len(out.path.read_text().splitlines()[0]) + 1


# -- Ctrl+B: the foreground command goes on in the background ------------------------------


async def test_a_running_foreground_command_moves_to_the_background(ended, tmp_path):
    ws = ended
    go = fifo(tmp_path, "go.fifo")
    recorder = Recorder()
    call = asyncio.ensure_future(
        BashTool(kill_grace=0.5).run(
            BashInput(command=f"echo before; echo $$ > {go}; read line < {go}; echo after"),
            ctx(ws, recorder),
        )
    )
    await recorder.wait_for("before")
    pid = int(await read_fifo(go))
    assert ws.background_tasks().move_foreground() is True

    result = await asyncio.wait_for(call, 30)
    (task_id,) = ws.background_tasks().ids()
    assert "before" in str(result.content) and task_id in str(result.content)
    assert not _is_gone(pid)  # it goes on
    await asyncio.to_thread(go.write_text, "go\n")
    done = await output(ws, task_id)
    assert "after" in done and "before" not in done  # the model already saw "before"
    assert "<status>completed</status>" in done


def test_nothing_to_move_without_a_foreground_command(workspace):
    assert workspace.background_tasks().move_foreground() is False


# -- no task outlives agentcli -------------------------------------------------------------


def test_a_crash_still_kills_the_tasks(tmp_path):
    """An uncaught error ends the interpreter: the atexit hook SIGKILLs every group."""
    pid_file = tmp_path / "pid"
    code = textwrap.dedent(
        f"""
        import asyncio
        from pathlib import Path
        from agentcli.core.abort import AbortSignal
        from agentcli.tools.base import ToolContext, Workspace
        from agentcli.tools.bash import BashInput, BashTool

        async def main():
            ws = Workspace(Path({str(tmp_path)!r}), scratch_dir=Path({str(tmp_path / "s")!r}))
            command = "sleep 600 & echo $$ $! > {pid_file}.tmp; mv {pid_file}.tmp {pid_file}; wait"
            await BashTool().run(
                BashInput(command=command, run_in_background=True),
                ToolContext(ws, AbortSignal()),
            )
            while not Path({str(pid_file)!r}).exists():
                await asyncio.sleep(0.01)
            raise RuntimeError("crash")

        loop = asyncio.new_event_loop()
        loop.run_until_complete(main())
        """
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert "RuntimeError: crash" in done.stderr
    pids = [int(p) for p in pid_file.read_text().split()]
    assert len(pids) == 2 and all(_is_gone(pid) for pid in pids)


# -- the sandbox -------------------------------------------------------------------------


@pytest.fixture
async def sandboxed(tmp_path: Path, needs_bwrap):
    from agentcli.sandbox import Sandbox

    root = tmp_path / "sandboxed"
    root.mkdir()
    ws = Workspace(root, scratch_dir=tmp_path / "sandbox-scratch", sandbox=Sandbox())
    yield ws
    if ws.background is not None:
        await ws.background.stop_all()


async def test_a_background_command_runs_in_the_same_sandbox(sandboxed, isolated_home):
    ws = sandboxed
    command = 'echo inside > made.txt; echo data > "$HOME/escaped.txt"; echo "exit $?"'
    task_id = await start(ws, command)
    done = await output(ws, task_id)
    assert "Read-only file system" in done or "Permission denied" in done
    assert (ws.root / "made.txt").read_text() == "inside\n"
    assert not (isolated_home / "escaped.txt").exists()


async def test_stopping_a_sandboxed_task_leaves_nothing_running(sandboxed, tmp_path):
    ws = sandboxed
    token = f"agentcli-bg-{os.getpid()}-{id(ws)}"
    pipe = fifo(ws.root, "ready.fifo")  # in the project: the sandbox may write there
    task_id = await start(ws, f"bash -c 'exec -a {token} sleep 300' & echo ready > {pipe}; wait")
    from tests.tools.test_bash_sandbox import _all_gone, _running

    assert await read_fifo(pipe) == "ready\n"
    assert _running(token)
    await TaskStopTool().run(TaskStopInput(task_id=task_id), ctx(ws))
    await _all_gone(token)


async def test_a_task_that_cannot_get_its_output_file_does_not_run_on(ended, monkeypatch):
    """No task holds the shell then: it is ended before the error comes back."""
    from agentcli.tools import bash as bash_module

    spawned: list[int] = []
    real_spawn = bash_module.Shell.spawn

    async def spy(*args, **kwargs):
        shell = await real_spawn(*args, **kwargs)
        spawned.append(shell.pid)
        return shell

    monkeypatch.setattr(bash_module.Shell, "spawn", spy)
    ws = ended
    (ws.scratch() / "tasks").write_text("not a folder")
    call = BashTool(kill_grace=0.5).run(
        BashInput(command="sleep 600", run_in_background=True), ctx(ws)
    )
    with pytest.raises(ToolError, match="output file"):
        await call
    (pid,) = spawned
    assert _is_gone(pid)
    assert ws.background_tasks().ids() == []


async def test_a_filter_that_backtracks_without_end_is_given_up_on_while_the_loop_runs(
    ended, tmp_path
):
    # `(a|aa)+$` against a long run of "a" that does not end the line tries ~1.6**n ways
    # (for `re` and `regex` alike): the model's pattern must cost a bounded time, off the
    # event loop (the app stays live).
    ws = ended
    task_id = await start(ws, "printf 'a%.0s' $(seq 1 64); printf '!\\nok\\n'")
    assert await ws.background_tasks().get(task_id).wait(60)  # its output all in, unread
    call = asyncio.ensure_future(
        BashOutputTool().run(BashOutputInput(bash_id=task_id, filter="(a|aa)+$"), ctx(ws))
    )
    ticks = 0
    while not call.done():
        ticks += 1
        await asyncio.sleep(0.01)

    text = str(call.result().content)
    assert "The filter took more than 2 s on this output" in text
    assert "a" * 64 + "!\nok" in text  # shown unfiltered: nothing read is lost
    assert ticks > 1


async def test_a_filter_reads_many_lines_quickly_and_keeps_python_syntax(ended, tmp_path):
    ws = ended
    task_id = await start(ws, "seq 1 200000 | sed 's/^/line /'")
    assert await ws.background_tasks().get(task_id).wait(60)  # its output all in, unread
    result = await BashOutputTool().run(
        BashOutputInput(bash_id=task_id, filter=r"^line (?P<n>\d*7)$(?<=77)"), ctx(ws)
    )
    body = str(result.content).split("<output>\n", 1)[1].removesuffix("\n</output>")
    shown = [line for line in body.splitlines() if not line.startswith("[")]
    assert shown[-1] == "line 199977" and len(shown) > 100
    assert all(line.startswith("line ") and line.endswith("77") for line in shown)
