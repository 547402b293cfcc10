"""Background shells through the real `agentcli -p` against the fake API.

The fake model starts a command with `run_in_background`, reads it with the id the
result gave (a scripted reply made from the request it answers), and stops it or
leaves it running; whatever it does, no process of the command is left once
agentcli has exited: not at the end of the run, not after SIGTERM or SIGHUP. The
commands write their pids to a file (or a FIFO, to tell the test they run).
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from tests.fakeapi import hang, reply, text, tool_use
from tests.tools.test_bash import _is_gone


def _env(fake_api) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
    env.update(
        AGENTCLI_RETRY_BASE_DELAY_MS="0",
        ANTHROPIC_API_KEY="test-key",
        ANTHROPIC_BASE_URL=fake_api.base_url,
    )
    return env


def _results(body: dict[str, Any]) -> list[str]:
    """The text of every tool result in the request, in order."""
    found = []
    for message in body["messages"]:
        if message["role"] != "user" or not isinstance(message["content"], list):
            continue
        for block in message["content"]:
            if block.get("type") == "tool_result":
                content = block["content"]
                if isinstance(content, list):
                    content = "".join(part.get("text", "") for part in content)
                found.append(str(content))
    return found


def _task_id(body: dict[str, Any]) -> str:
    match = re.search(r"with ID: (\w+)\.", _results(body)[-1])
    assert match, _results(body)[-1]
    return match.group(1)


def _call_with_id(name: str, field: str, **more: Any):
    """A scripted reply calling `name` with the id the last result gave."""
    return lambda body: reply(tool_use(name, {field: _task_id(body), **more}))


def _run(fake_api, project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "agentcli", "-p", "go", "--allowedTools=Bash", *args],
        cwd=project,
        env=_env(fake_api),
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.fixture
def project(tmp_path: Path, isolated_home) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    return folder


class Pids:
    """A FIFO the command writes its pids to, read by a thread of the test: `ready` is
    set once the command runs (a scripted reply waits on it before the model goes on)."""

    def __init__(self, folder: Path) -> None:
        self.path = folder / "pids.fifo"
        os.mkfifo(self.path)
        self.pids: list[int] = []
        self.ready = threading.Event()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        self.pids = [int(p) for p in self.path.read_text().split()]
        self.ready.set()

    def after(self, scripted: Any):
        """`scripted`, answered only once the command has told its pids."""

        def wait_then(body: dict[str, Any]) -> Any:
            assert self.ready.wait(60), "the background command never ran"
            return scripted(body) if callable(scripted) else scripted

        return wait_then

    def command(self, before: str = "") -> str:
        """A shell with a child that tells both pids once both run, then serves."""
        return f"{before}sleep 600 & echo $$ $! > {self.path}; wait"


def test_start_read_and_stop_a_background_command(fake_api, project, tmp_path):
    pids = Pids(tmp_path)
    started = pids.command("echo serving; ")
    fake_api.enqueue(reply(tool_use("Bash", {"command": started, "run_in_background": True})))
    fake_api.enqueue(pids.after(_call_with_id("TaskOutput", "task_id", block=True, timeout=200)))
    fake_api.enqueue(
        lambda body: reply(
            tool_use("TaskStop", {"task_id": re.findall(r"<task_id>(\w+)<", _results(body)[-1])[0]})
        )
    )
    fake_api.enqueue(reply(text("stopped")))

    done = _run(fake_api, project)

    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "stopped"
    started_result, read, stopped = _results(fake_api.requests[-1].body)
    assert "Command running in the background with ID:" in started_result
    assert "<status>running</status>" in read and "serving" in read
    assert "Stopped task" in stopped
    assert len(pids.pids) == 2 and all(_is_gone(pid) for pid in pids.pids)


def test_the_old_names_work_through_the_binary(fake_api, project, tmp_path):
    pids = Pids(tmp_path)
    command = pids.command("echo hello; ")
    fake_api.enqueue(reply(tool_use("Bash", {"command": command, "run_in_background": True})))
    fake_api.enqueue(pids.after(_call_with_id("BashOutput", "bash_id")))
    fake_api.enqueue(
        lambda body: reply(
            tool_use(
                "KillShell", {"shell_id": re.findall(r"<task_id>(\w+)<", _results(body)[-1])[0]}
            )
        )
    )
    fake_api.enqueue(reply(text("done")))

    done = _run(fake_api, project)

    assert done.returncode == 0, done.stderr
    _started, read, killed = _results(fake_api.requests[-1].body)
    assert "<task_id>" in read and "hello" in read and "Stopped task" in killed
    assert all(_is_gone(pid) for pid in pids.pids)
    offered = {tool["name"] for tool in fake_api.requests[0].body["tools"]}
    assert {"TaskOutput", "TaskStop"} <= offered and not offered & {"BashOutput", "KillShell"}


def test_a_task_left_running_ends_with_the_run(fake_api, project, tmp_path):
    pids = Pids(tmp_path)
    fake_api.enqueue(
        reply(tool_use("Bash", {"command": pids.command(), "run_in_background": True}))
    )
    fake_api.enqueue(pids.after(_call_with_id("TaskOutput", "task_id", block=False)))
    fake_api.enqueue(reply(text("left it running")))

    done = _run(fake_api, project)

    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "left it running"
    assert "<status>running</status>" in _results(fake_api.requests[-1].body)[-1]
    assert len(pids.pids) == 2 and all(_is_gone(pid) for pid in pids.pids)


def test_starting_one_is_asked_like_a_foreground_command(fake_api, project, tmp_path):
    """-p refuses what would be asked: the background command never runs."""
    marker = tmp_path / "ran"
    command = f"touch {marker}"
    fake_api.enqueue(reply(tool_use("Bash", {"command": command, "run_in_background": True})))
    fake_api.enqueue(reply(text("refused")))

    done = subprocess.run(
        [sys.executable, "-m", "agentcli", "-p", "go"],
        cwd=project,
        env=_env(fake_api),
        capture_output=True,
        text=True,
        timeout=120,
    )

    assert done.returncode == 0, done.stderr
    (result,) = _results(fake_api.requests[-1].body)
    assert "permission" in result.lower() and not marker.exists()


@pytest.mark.parametrize(
    ("signum", "status"), [(signal.SIGTERM, 143), (signal.SIGHUP, 129)], ids=["TERM", "HUP"]
)
def test_a_signal_ends_the_background_tasks(fake_api, project, tmp_path, signum, status):
    pipe = tmp_path / "pid.fifo"
    os.mkfifo(pipe)
    command = f"sleep 600 & echo $$ $! > {pipe}; wait"
    fake_api.enqueue(reply(tool_use("Bash", {"command": command, "run_in_background": True})))
    stuck = hang(reply(text("never")), after_events=2)
    fake_api.enqueue(stuck)
    proc = subprocess.Popen(
        [sys.executable, "-m", "agentcli", "-p", "go", "--allowedTools=Bash"],
        cwd=project,
        env=_env(fake_api),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        with open(pipe) as reader:  # blocks until the command runs
            pids = [int(p) for p in reader.read().split()]
        assert stuck.reached.wait(30), "the next request never came"
        proc.send_signal(signum)
        _out, err = proc.communicate(timeout=30)
    finally:
        proc.kill()

    assert proc.returncode == status, err
    assert len(pids) == 2 and all(_is_gone(pid) for pid in pids), "a task outlived agentcli"


def test_stream_json_shows_the_background_calls(fake_api, project, tmp_path):
    """The SDK reads stream-json: the tools' calls and results come out as any tool's."""
    command = "echo from-the-background"
    fake_api.enqueue(reply(tool_use("Bash", {"command": command, "run_in_background": True})))
    fake_api.enqueue(_call_with_id("TaskOutput", "task_id"))
    fake_api.enqueue(reply(text("read")))

    done = _run(fake_api, project, "--output-format=stream-json", "--verbose")

    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    uses = [
        block["name"]
        for event in events
        if event.get("type") == "assistant"
        for block in event["message"]["content"]
        if block.get("type") == "tool_use"
    ]
    assert uses == ["Bash", "TaskOutput"]
    results = json.dumps([e for e in events if e.get("type") == "user"])
    assert "from-the-background" in results and "<status>completed</status>" in results
