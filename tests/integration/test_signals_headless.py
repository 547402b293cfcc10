"""SIGTERM (a CI timeout) and SIGHUP (a closed terminal) end `agentcli -p` like Ctrl+C.

The command the model started must not outlive agentcli, the transcript must
end with the interrupted marker, and the final result object is still written.
The running command tells the test its PID through a FIFO, so the test waits
on that event rather than on time.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from agentcli.engine.loop import INTERRUPT_MARKER
from tests.fakeapi import reply, text, tool_use
from tests.tools.test_bash import _is_gone


def transcript_records(home: Path) -> list[dict]:
    (path,) = list((home / ".agentcli" / "projects").glob("*/*.jsonl"))
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


@pytest.mark.parametrize(
    ("signum", "status"), [(signal.SIGTERM, 143), (signal.SIGHUP, 129)], ids=["TERM", "HUP"]
)
def test_a_terminating_signal_kills_the_command_and_still_writes_the_result(
    fake_api, tmp_path, isolated_home, signum, status
):
    project = tmp_path / "project"
    project.mkdir()
    fifo = tmp_path / "pid.fifo"
    os.mkfifo(fifo)
    command = f"echo $$ > {fifo}; sleep 600"
    fake_api.enqueue(reply(tool_use("Bash", {"command": command})))
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
    env.update(ANTHROPIC_API_KEY="test-key", ANTHROPIC_BASE_URL=fake_api.base_url)
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "agentcli",
            "-p",
            "run it",
            "--output-format=json",
            "--allowedTools=Bash",
        ],
        cwd=project,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        with open(fifo) as reader:  # blocks until the command runs
            shell_pid = int(reader.read().strip())
        proc.send_signal(signum)
        out, err = proc.communicate(timeout=30)
    finally:
        proc.kill()

    assert proc.returncode == status, err
    result = json.loads(out)
    assert result["subtype"] == "error_during_execution" and result["is_error"] is True
    assert result["terminal_reason"] == "aborted_tools"
    # agentcli waits for the command's group to die before it exits: no polling here.
    assert _is_gone(shell_pid), "the command outlived agentcli"
    last = transcript_records(isolated_home)[-1]["message"]
    assert last["role"] == "user"
    assert last["content"][-1] == {"type": "text", "text": INTERRUPT_MARKER}
    assert last["content"][0]["type"] == "tool_result" and last["content"][0]["is_error"]


def test_sigterm_while_waiting_for_the_model_ends_with_the_result(fake_api, tmp_path):
    from tests.fakeapi import hang

    project = tmp_path / "project"
    project.mkdir()
    stuck = hang(reply(text("a long answer that never ends")), after_events=4)
    fake_api.enqueue(stuck)
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
    env.update(ANTHROPIC_API_KEY="test-key", ANTHROPIC_BASE_URL=fake_api.base_url)
    proc = subprocess.Popen(
        [sys.executable, "-m", "agentcli", "-p", "tell me", "--output-format", "stream-json"],
        cwd=project,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert stuck.reached.wait(30), "the request never reached the server"
        proc.send_signal(signal.SIGTERM)
        out, _err = proc.communicate(timeout=30)
    finally:
        proc.kill()

    assert proc.returncode == 143
    final = json.loads(out.splitlines()[-1])
    assert final["type"] == "result" and final["subtype"] == "error_during_execution"
    assert final["terminal_reason"] == "aborted_streaming"
