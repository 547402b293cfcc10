"""The real `agentcli` in a pseudo-terminal, ended by SIGTERM or by closing its terminal.

The command the model started must die with agentcli (its process group is
killed as on Esc), the transcript must end with the interrupted marker, and
the exit status is 128 + the signal number.
"""

from __future__ import annotations

import json
import os
import signal
import threading
import time
from pathlib import Path

import pexpect
import pytest

from agentcli.core.messages import INTERRUPT_MARKER
from tests.fakeapi import reply, tool_use
from tests.frontends.tui.pty_support import BINARY, terminal_env
from tests.support.processes import wait_for_exit
from tests.tools.test_bash import _is_gone


def read_pid_while_draining(child: pexpect.spawn, fifo: Path) -> int:
    """The command writes its PID to a FIFO; keep reading the terminal meanwhile, so
    the app never blocks on a full pty buffer."""
    found: list[int] = []
    reader = threading.Thread(target=lambda: found.append(int(fifo.read_text())), daemon=True)
    reader.start()
    deadline = time.monotonic() + 30
    while reader.is_alive():
        child.expect([pexpect.TIMEOUT, pexpect.EOF], timeout=0.05)
        assert child.isalive(), "agentcli ended before running the command"
        assert time.monotonic() < deadline, "the command never ran"
    return found[0]


def spawn_running_a_command(fake_api, tmp_path: Path, home: Path) -> tuple[pexpect.spawn, int]:
    fifo = tmp_path / "pid.fifo"
    os.mkfifo(fifo)
    fake_api.enqueue(reply(tool_use("Bash", {"command": f"echo $$ > {fifo}; sleep 600"})))
    project = tmp_path / "project"
    project.mkdir()
    env = terminal_env(fake_api, home)
    child = pexpect.spawn(
        str(BINARY),
        ["--allowedTools=Bash", "run the command"],
        cwd=str(project),
        env=env,
        dimensions=(30, 100),
        encoding="utf-8",
        timeout=30,
    )
    return child, read_pid_while_draining(child, fifo)


def last_message(home: Path) -> dict:
    (path,) = list((home / ".agentcli" / "projects").glob("*/*.jsonl"))
    records = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return records[-1]["message"]


def assert_ended_cleanly(shell_pid: int, home: Path) -> None:
    assert _is_gone(shell_pid), "the command outlived agentcli"
    last = last_message(home)
    assert last["role"] == "user"
    assert last["content"][-1] == {"type": "text", "text": INTERRUPT_MARKER}


@pytest.mark.skipif(not BINARY.exists(), reason="agentcli is not installed in this venv")
def test_sigterm_ends_the_app_like_an_interrupt(fake_api, tmp_path, isolated_home):
    child, shell_pid = spawn_running_a_command(fake_api, tmp_path, isolated_home)
    try:
        child.kill(signal.SIGTERM)
        wait_for_exit(child)
    finally:
        child.close(force=True)
    assert child.exitstatus == 143, (child.exitstatus, child.signalstatus)
    assert_ended_cleanly(shell_pid, isolated_home)


@pytest.mark.skipif(not BINARY.exists(), reason="agentcli is not installed in this venv")
def test_closing_the_terminal_ends_the_app_like_an_interrupt(fake_api, tmp_path, isolated_home):
    child, shell_pid = spawn_running_a_command(fake_api, tmp_path, isolated_home)
    os.close(child.child_fd)  # the terminal window goes away: the kernel sends SIGHUP
    _pid, status = os.waitpid(child.pid, 0)
    child.closed = True  # pexpect must not touch the closed descriptor again
    assert os.WIFEXITED(status), f"killed by signal {os.WTERMSIG(status)}"
    assert os.WEXITSTATUS(status) == 129
    assert_ended_cleanly(shell_pid, isolated_home)
