"""Bash tool: output, exit codes, cwd persistence, timeouts, interrupts, orphans."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from agentcli.core.abort import AbortSignal
from agentcli.permissions.policy import only_reads
from agentcli.tools.base import ToolContext, Workspace
from agentcli.tools.bash import BashInput, BashTool, format_ms
from agentcli.tools.display import CommandDisplay, LiveOutput
from agentcli.tools.inputs import input_schema
from agentcli.tools.shell_output import OutputBuffer, ProgressThrottle
from agentcli.wiring.bootstrap import session_builtin_tools


@pytest.fixture
def workspace(tmp_path: Path) -> Workspace:
    root = tmp_path / "project"
    root.mkdir()
    return Workspace(root, scratch_dir=tmp_path / "scratch")


@pytest.fixture
def tool() -> BashTool:
    return BashTool(kill_grace=0.5, read_only_lines=only_reads)


class Recorder:
    """Collects progress reports and lets a test wait for one containing some text."""

    def __init__(self) -> None:
        self.reports: list[LiveOutput] = []
        self._changed = asyncio.Event()

    def __call__(self, output: LiveOutput) -> None:
        self.reports.append(output)
        self._changed.set()

    @property
    def text(self) -> str:
        return "".join(r.text for r in self.reports)

    async def wait_for(self, needle: str, timeout: float = 10.0) -> str:
        async def loop() -> str:
            while needle not in self.text:
                self._changed.clear()
                await self._changed.wait()
            return self.text

        return await asyncio.wait_for(loop(), timeout)


def make_ctx(ws: Workspace, report: Callable[[Any], None] | None = None) -> ToolContext:
    return ToolContext(ws, AbortSignal(), report=report or (lambda _data: None))


async def bash(tool: BashTool, ws: Workspace, command: str, **kw: Any):
    return await tool.run(BashInput(command=command, **kw), make_ctx(ws))


def _is_gone(pid: int) -> bool:
    """No such process, or only a zombie left (PID 1 may not reap orphans here)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    try:
        stat = Path(f"/proc/{pid}/stat").read_bytes()
    except OSError:
        return True
    return stat[stat.rfind(b")") + 2 :].split()[0] in (b"Z", b"X")


def _group_members(pgid: int) -> list[int]:
    members = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_bytes()
            except OSError:
                continue
            if int(stat[stat.rfind(b")") + 2 :].split()[2]) == pgid:
                members.append(int(entry.name))
    return members


async def assert_all_gone(pids: list[int], pgid: int | None = None) -> None:
    """Bounded poll (the kill already happened; this only absorbs kernel latency)."""
    deadline = time.monotonic() + 5
    while True:
        alive = [p for p in pids if not _is_gone(p)]
        if pgid is not None:
            try:
                os.killpg(pgid, 0)
            except ProcessLookupError:
                pass
            else:  # only zombies may remain in the group
                alive += [p for p in _group_members(pgid) if not _is_gone(p)]
        if not alive:
            return
        assert time.monotonic() < deadline, f"still alive: {alive}"
        await asyncio.sleep(0.02)


# -- input model -------------------------------------------------------------


def test_schema_fields_and_descriptions() -> None:
    schema = input_schema(BashInput)
    assert set(schema["properties"]) == {"command", "timeout", "description", "run_in_background"}
    assert schema["required"] == ["command"]
    assert all(p.get("description") for p in schema["properties"].values())


@pytest.mark.parametrize("timeout", [0, -5, 600_001])
def test_timeout_is_validated(timeout: int) -> None:
    with pytest.raises(ValidationError):
        BashInput(command="true", timeout=timeout)


def test_timeout_maximum_accepted() -> None:
    assert BashInput(command="true", timeout=600_000).timeout == 600_000


def test_flags_summary_and_permission_subject(tool: BashTool, workspace: Workspace) -> None:
    ls = BashInput(command="ls -la")
    rm = BashInput(command="rm -rf build")
    assert tool.is_read_only(ls) and not tool.is_read_only(rm)
    assert not tool.is_concurrency_safe(ls)
    assert tool.permission_subject(rm) == "rm -rf build"
    assert tool.summary(BashInput(command="make test\necho done"), workspace) == "make test …"
    long = tool.summary(BashInput(command="echo " + "x" * 200), workspace)
    assert len(long) == 80 and long.endswith("…")


def test_format_ms() -> None:
    assert format_ms(200) == "200ms"
    assert format_ms(1500) == "1.5s"
    assert format_ms(120_000) == "2m"
    assert format_ms(90_000) == "1m 30s"


# -- output and exit code ----------------------------------------------------


async def test_success_output(tool: BashTool, workspace: Workspace) -> None:
    result = await bash(tool, workspace, "echo hello")
    assert result.content == "hello"
    assert not result.is_error
    assert result.display == CommandDisplay(
        exit_code=0, timed_out=False, interrupted=False, output_file=None
    )


async def test_nonzero_exit_is_an_error_that_keeps_its_output(
    tool: BashTool, workspace: Workspace
) -> None:
    result = await bash(tool, workspace, "echo oops; exit 3")
    assert result.is_error  # as Claude Code marks a failed command
    assert result.content == "oops\nExit code: 3"
    assert result.display.exit_code == 3


async def test_killed_by_signal_reports_shell_code(tool: BashTool, workspace: Workspace) -> None:
    result = await bash(tool, workspace, "kill -SEGV $$")
    assert "Exit code: 139 (killed by SIGSEGV)" in result.content


async def test_stdout_and_stderr_interleave(tool: BashTool, workspace: Workspace) -> None:
    cmd = "echo one; echo two >&2; echo three; echo four >&2"
    result = await bash(tool, workspace, cmd)
    assert result.content == "one\ntwo\nthree\nfour"


async def test_empty_output_says_so(tool: BashTool, workspace: Workspace) -> None:
    assert (await bash(tool, workspace, "true")).content == "(no output)"
    assert (await bash(tool, workspace, "false")).content == "(no output)\nExit code: 1"


async def test_stdin_is_dev_null(tool: BashTool, workspace: Workspace) -> None:
    result = await bash(tool, workspace, "cat; read x; echo read=$?", timeout=10_000)
    assert result.content == "read=1"


async def test_error_messages_are_the_commands_own(tool: BashTool, workspace: Workspace) -> None:
    result = await bash(tool, workspace, "no-such-command-xyz")
    assert result.content.startswith("bash: line 1: no-such-command-xyz: command not found")
    assert "Exit code: 127" in result.content
    syntax = await bash(tool, workspace, "echo (")
    assert "line 1" in syntax.content and "AGENTCLI" not in syntax.content


async def test_utf8_survives_chunk_boundaries(tool: BashTool, workspace: Workspace) -> None:
    result = await bash(tool, workspace, "for i in $(seq 1 3000); do printf 'é€😀'; done")
    assert result.content == "é€😀" * 3000


# -- progress ----------------------------------------------------------------


async def test_progress_arrives_before_the_command_ends(
    tool: BashTool, workspace: Workspace, tmp_path: Path
) -> None:
    fifo = tmp_path / "gate"
    os.mkfifo(fifo)
    recorder = Recorder()
    task = asyncio.create_task(
        tool.run(
            BashInput(command=f"echo first; read line < {fifo}; echo got $line"),
            make_ctx(workspace, recorder),
        )
    )
    await recorder.wait_for("first")
    assert not task.done()
    assert recorder.reports[0] == LiveOutput(text="first\n")

    def release() -> None:
        with open(fifo, "w") as gate:
            gate.write("go\n")

    await asyncio.to_thread(release)
    result = await asyncio.wait_for(task, 10)
    assert result.content == "first\ngot go"
    assert recorder.text == "first\ngot go\n"


async def test_progress_is_coalesced_and_complete(tool: BashTool, workspace: Workspace) -> None:
    recorder = Recorder()
    cmd = "for i in $(seq 1 3000); do echo line $i; done"
    await tool.run(BashInput(command=cmd), make_ctx(workspace, recorder))
    expected = "".join(f"line {i}\n" for i in range(1, 3001))
    assert recorder.text == expected
    assert len(recorder.reports) < 300


def test_throttle_schedules_a_flush_and_caps_pending() -> None:
    now = [0.0]
    scheduled: list[Callable[[], None]] = []
    sent: list[str] = []
    throttle = ProgressThrottle(
        sent.append, lambda _d, cb: scheduled.append(cb), lambda: now[0], 1.0, max_pending=10
    )
    throttle.push("a")
    assert sent == ["a"]  # first report goes out at once
    throttle.push("b")
    throttle.push("c")
    assert sent == ["a"] and len(scheduled) == 1  # the rest waits for the timer
    scheduled.pop()()
    assert sent == ["a", "bc"]
    throttle.push("0123456789XYZ")
    throttle.close()
    assert sent[-1] == "[... 3 characters not shown ...]\n3456789XYZ"


# -- working directory and environment ---------------------------------------


async def test_cwd_persists_inside_project(tool: BashTool, workspace: Workspace) -> None:
    (workspace.root / "sub").mkdir()
    first = await bash(tool, workspace, "cd sub")
    assert first.content == "(no output)"
    assert workspace.shell_cwd == workspace.root / "sub"
    second = await bash(tool, workspace, "pwd")
    assert second.content == str(workspace.root / "sub")


async def test_cwd_persists_through_exit_n(tool: BashTool, workspace: Workspace) -> None:
    (workspace.root / "sub").mkdir()
    result = await bash(tool, workspace, "cd sub && exit 4")
    assert result.display.exit_code == 4
    assert workspace.shell_cwd == workspace.root / "sub"


async def test_cwd_outside_project_resets_to_root(tool: BashTool, workspace: Workspace) -> None:
    (workspace.root / "sub").mkdir()
    await bash(tool, workspace, "cd sub")
    result = await bash(tool, workspace, "cd / && pwd")
    assert result.content.startswith("/\n")
    assert "reset to the project root" in result.content
    assert workspace.shell_cwd == workspace.root
    assert (await bash(tool, workspace, "pwd")).content == str(workspace.root)


async def test_cwd_in_extra_dir_persists(
    tool: BashTool, workspace: Workspace, tmp_path: Path
) -> None:
    other = tmp_path / "other"
    other.mkdir()
    workspace.extra_dirs.append(other)
    await bash(tool, workspace, f"cd {other}")
    assert workspace.shell_cwd == other.resolve()


async def test_vanished_cwd_falls_back_to_root(tool: BashTool, workspace: Workspace) -> None:
    (workspace.root / "gone").mkdir()
    await bash(tool, workspace, "cd gone")
    (workspace.root / "gone").rmdir()
    result = await bash(tool, workspace, "pwd")
    assert result.content.startswith(str(workspace.root))
    assert "no longer exists" in result.content


async def test_environment_does_not_persist(tool: BashTool, workspace: Workspace) -> None:
    await bash(tool, workspace, "export AGENT_TEST_X=1")
    result = await bash(tool, workspace, 'echo "X=$AGENT_TEST_X"')
    assert result.content == "X="


async def test_workspace_env_is_applied_and_internals_hidden(
    tool: BashTool, workspace: Workspace
) -> None:
    workspace.env["AGENT_TEST_FOO"] = "bar"
    cmd = 'echo "$AGENT_TEST_FOO [$BASH_ENV]"; env | grep -c -e AGENTCLI_CWD -e AGENTCLI_BASH'
    result = await bash(tool, workspace, cmd)
    assert result.content == "bar []\n0\nExit code: 1"


async def test_users_bash_env_still_sourced(
    tool: BashTool, workspace: Workspace, tmp_path: Path
) -> None:
    rc = tmp_path / "user_rc.sh"
    rc.write_text("USER_RC_LOADED=yes\n")
    workspace.env["BASH_ENV"] = str(rc)
    result = await bash(tool, workspace, 'echo "$USER_RC_LOADED"')
    assert result.content == "yes"


# -- timeout, interrupt, orphans ---------------------------------------------


async def test_timeout_kills_and_says_so(tool: BashTool, workspace: Workspace) -> None:
    started = time.monotonic()
    result = await bash(tool, workspace, "echo before; sleep 30; echo finished", timeout=200)
    assert time.monotonic() - started < 10
    assert result.is_error
    assert result.content.startswith("before\n")
    assert "finished" not in result.content
    assert "timed out after 200ms" in result.content
    assert result.display.timed_out and result.display.exit_code is None


async def test_timeout_kills_background_children_too(
    tool: BashTool, workspace: Workspace, tmp_path: Path
) -> None:
    pidfile = tmp_path / "pids"
    cmd = f"sleep 300 & echo $! > {pidfile}; echo $$ >> {pidfile}; sleep 300"
    result = await bash(tool, workspace, cmd, timeout=300)
    assert result.display.timed_out
    child, pgid = map(int, pidfile.read_text().split())
    await assert_all_gone([child], pgid)


async def test_sigterm_ignoring_child_gets_sigkill(workspace: Workspace, tmp_path: Path) -> None:
    tool = BashTool(kill_grace=0.2)
    pidfile = tmp_path / "pids"
    cmd = f"trap '' TERM; sleep 300 & echo $! > {pidfile}; sleep 300"
    started = time.monotonic()
    result = await bash(tool, workspace, cmd, timeout=200)
    assert time.monotonic() - started < 10
    assert result.display.timed_out
    await assert_all_gone([int(pidfile.read_text())])


async def test_cancellation_leaves_no_orphan(
    tool: BashTool, workspace: Workspace, tmp_path: Path
) -> None:
    """THE orphan test: cancel the task while background children run."""
    pidfile = tmp_path / "pids"
    cmd = (
        f"sleep 300 & echo $! >> {pidfile}; "
        f"(sleep 300; echo never) & echo $! >> {pidfile}; "
        f"sh -c 'sleep 300' & echo $! >> {pidfile}; "
        'echo "ready $$"; wait'
    )
    recorder = Recorder()
    task = asyncio.create_task(tool.run(BashInput(command=cmd), make_ctx(workspace, recorder)))
    text = await recorder.wait_for("ready")
    pgid = int(re.search(r"ready (\d+)", text).group(1))
    pids = [int(p) for p in pidfile.read_text().split()]
    assert len(pids) == 3
    assert all(os.getpgid(p) == pgid for p in pids)

    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await assert_all_gone([*pids, pgid], pgid)


async def test_abort_signal_interrupts_with_output_so_far(
    tool: BashTool, workspace: Workspace, tmp_path: Path
) -> None:
    pidfile = tmp_path / "pid"
    recorder = Recorder()
    ctx = make_ctx(workspace, recorder)
    cmd = f"sleep 300 & echo $! > {pidfile}; echo partial; wait"
    task = asyncio.create_task(tool.run(BashInput(command=cmd), ctx))
    await recorder.wait_for("partial")
    ctx.abort.abort()
    result = await asyncio.wait_for(task, 10)
    assert result.is_error
    assert result.content.startswith("partial\n")
    assert "interrupted" in result.content
    assert result.display.interrupted and not result.display.timed_out
    await assert_all_gone([int(pidfile.read_text())])


async def test_background_job_left_running_is_stopped(
    tool: BashTool, workspace: Workspace, tmp_path: Path
) -> None:
    pidfile = tmp_path / "pid"
    started = time.monotonic()
    result = await bash(tool, workspace, f"sleep 300 & echo $! > {pidfile}; echo done")
    assert time.monotonic() - started < 5
    assert result.content == "done"
    await assert_all_gone([int(pidfile.read_text())])


async def test_detached_process_holding_output_does_not_hang(
    tool: BashTool, workspace: Workspace, tmp_path: Path
) -> None:
    pidfile = tmp_path / "pid"
    started = time.monotonic()
    result = await bash(tool, workspace, f"setsid sleep 30 & echo $! > {pidfile}; echo done")
    try:
        assert time.monotonic() - started < 8
        assert result.content.startswith("done")
    finally:
        try:
            os.kill(int(pidfile.read_text()), signal.SIGKILL)
        except (ProcessLookupError, ValueError):
            pass


# -- long output --------------------------------------------------------------


async def test_long_output_cut_in_the_middle_with_full_file(
    tool: BashTool, workspace: Workspace
) -> None:
    result = await bash(tool, workspace, "seq 1 50000; echo tail-marker >&2")
    content = result.content
    assert len(content) < 31_000
    assert content.startswith("1\n2\n3\n")
    assert content.endswith("50000\ntail-marker")
    note = re.search(r"\[(\d+) characters \((\d+) lines\) omitted .* saved in (\S+)\]", content)
    assert note, content[12_000:12_400]
    path = Path(note.group(3))
    assert str(path) == result.display.output_file
    assert path.parent == workspace.scratch()
    full = "".join(f"{i}\n" for i in range(1, 50001)) + "tail-marker\n"
    assert path.read_text() == full
    head, _, tail = content.partition("\n... [")
    tail = tail.split("] ...\n", 1)[1]
    assert int(note.group(1)) == len(full) - len(head) - 1 - len(tail) - 1
    kept_lines = head.count("\n") + 1 + tail.count("\n") + 1
    assert int(note.group(2)) == 50001 - kept_lines


def test_output_buffer_memory_stays_bounded(tmp_path: Path) -> None:
    buffer = OutputBuffer(lambda: tmp_path, max_chars=1000)
    chunk = b"x" * 999 + b"\n"
    for _ in range(10_000):  # 10 MB through a 1000-character budget
        buffer.feed(chunk)
    buffer.finish()
    assert sum(len(part) for part in buffer._tail) < 2 * len(chunk) + 1000
    rendered = buffer.render()
    assert rendered.truncated and rendered.total_chars == 10_000_000
    assert len(rendered.text) < 1300
    assert rendered.full_output_path.stat().st_size == 10_000_000


def test_output_buffer_small_output_kept_whole(tmp_path: Path) -> None:
    buffer = OutputBuffer(lambda: tmp_path / "never", max_chars=100)
    for piece in ("é".encode()[:1], "é".encode()[1:], b"abc"):
        buffer.feed(piece)
    buffer.finish()
    rendered = buffer.render()
    assert rendered.text == "éabc" and not rendered.truncated
    assert not (tmp_path / "never").exists()


# -- read-only command list ---------------------------------------------------

READ_ONLY_TABLE = [
    ("ls", True),
    ("ls -la src", True),
    ("pwd", True),
    ("cat 'file with spaces.txt'", True),
    ("head -n 20 README.md", True),
    ("wc -l *.py", True),
    ('echo "hello $USER"', True),
    ("echo ';'", True),
    ("grep -rn 'a|b' src", True),
    ("rg -i todo", True),
    ("find . -name '*.py'", True),
    ("git status", True),
    ("git diff --stat HEAD~1", True),
    ("git log --oneline -5", True),
    ("git branch -a", True),
    ("git branch --list 'feat*'", True),
    ("ls; rm -rf x", False),
    ("cat $(echo x)", False),
    ("cat `echo x`", False),
    ("echo hi > f", False),
    ("echo hi >> f", False),
    ("cat < f", True),  # reading a file through a redirect still only reads
    ("git status && rm x", False),
    ("ls || rm x", False),
    ("ls | sh", False),
    ("ls &", True),  # in the background, killed with the call: still only reads
    ("ls\nrm -rf x", False),
    ("diff <(ls a) <(ls b)", True),  # every command inside only reads
    ("find . -delete", False),
    ("find . -name x -exec rm {} \\;", False),
    ("rm -rf build", False),
    ("FOO=1 ls", False),
    ("git branch new-feature", False),
    ("git branch -D main", False),
    ("git -c diff.external=x diff", False),
    ("git diff --output=patch.txt", False),
    ("git diff --out=patch.txt", False),
    ("git commit -m x", False),
    ("sort -o out.txt in.txt", False),
    ("sort -ro out.txt in.txt", False),
    ("rg --pre ./evil pattern", False),
    ("tree -o listing.txt", False),
    ("/bin/rm -rf x", False),
    ("echo ${x:=$(rm y)}", False),
    ("echo $'\\x41'", False),
    ("echo 'unterminated", False),
    ("", False),
    ("(ls)", True),
    ("cat < f > g", False),
    ("(ls; rm x)", False),
    ("diff <(rm a) b", False),
    ("echo $((x+2))", False),  # names in arithmetic; literals are understood
    ("echo $((1+2))", True),
    ("git diff ${_@P}", False),
]


@pytest.mark.parametrize(("command", "expected"), READ_ONLY_TABLE)
def test_read_only_commands(command: str, expected: bool) -> None:
    assert only_reads(command) is expected


async def test_failing_progress_consumer_does_not_break_the_command(
    tool: BashTool, workspace: Workspace
) -> None:
    def broken(_data: Any) -> None:
        raise RuntimeError("ui gone")

    ctx = make_ctx(workspace, broken)
    result = await tool.run(BashInput(command="seq 1 5"), ctx)
    assert result.content == "1\n2\n3\n4\n5"


_SAFE = [command for command, ok in READ_ONLY_TABLE if ok]
_ATTACKS = ["; rm x", " && rm x", " || rm x", " | sh", " > out", " >> out", " & rm x"]
_ATTACKS += [
    "\nrm x",
    " $(rm x)",
    " `rm x`",
    " <(rm x)",
    " 2> out",
    " ${x@P}",
    " $[x]",
]  # arithmetic on a name


@given(st.sampled_from(_SAFE), st.sampled_from(_ATTACKS))
def test_shell_syntax_after_a_safe_command_is_never_read_only(base: str, attack: str) -> None:
    assert not only_reads(base + attack)


def test_which_lines_only_read_is_the_permission_analysis_handed_to_the_tool() -> None:
    """The Bash tool does not know which commands only read: built without the permission
    analysis' judgement it calls no line read-only (a false "no" costs one question),
    and the session's Bash tool, which the composition root builds, has it."""
    ls, rm = BashInput(command="ls -la"), BashInput(command="rm -rf build")
    assert not BashTool().is_read_only(ls)
    (bash,) = [tool for tool in session_builtin_tools() if tool.name == "Bash"]
    assert bash.is_read_only(ls) and not bash.is_read_only(rm)


def test_descriptions_load(tool: BashTool) -> None:
    schema = tool.schema()
    assert schema["name"] == "Bash" and "30000" in schema["description"]
