"""SIGKILL at the worst moments, then `--continue`: nothing completed is lost and
the next request is one the API accepts (the fake server validates it)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import threading
from pathlib import Path

import pytest

from tests.fakeapi import hang, reply, text, tool_use
from tests.support.cli import agentcli_env, start_agentcli

SECRET = "sk-ant-test-secret-key-0123456789"
pytestmark = pytest.mark.timeout(60)


def agentcli(fake_api, project: Path, home: Path, *args: str) -> subprocess.Popen:
    env = agentcli_env(fake_api, key=SECRET, AGENTCLI_HOME=str(home), AGENTCLI_MAX_RETRIES="0")
    return start_agentcli(list(args), project, env)


@pytest.fixture
def dirs(tmp_path):
    project, home = tmp_path / "project", tmp_path / "agentcli-home"
    project.mkdir()
    return project, home


def kill(proc: subprocess.Popen) -> None:
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=10)


def continue_run(fake_api, project, home, prompt: str) -> tuple[int, str, str]:
    proc = agentcli(fake_api, project, home, "-p", prompt, "-c", "--output-format", "json")
    out, err = proc.communicate(timeout=30)
    return proc.returncode, out, err


def transcript_text(home: Path) -> str:
    return "".join(p.read_text() for p in home.glob("projects/*/*.jsonl"))


def test_kill_while_the_answer_streams_then_continue(fake_api, dirs):
    project, home = dirs
    first = reply(text("Let me write a long answer about " + "many things " * 40))
    hung = hang(first, after_events=5)
    fake_api.enqueue(reply(text("The first answer.")), hung)

    done = agentcli(fake_api, project, home, "-p", "remember the word PLUM")
    assert done.wait(timeout=30) == 0
    proc = agentcli(fake_api, project, home, "-p", "now say more", "-c")
    assert hung.reached.wait(timeout=30), "the second request never started streaming"
    kill(proc)

    fake_api.enqueue(reply(text("Continuing.")))
    code, out, err = continue_run(fake_api, project, home, "and then?")

    assert code == 0, err
    assert json.loads(out)["result"] == "Continuing."
    sent = json.dumps(fake_api.requests[-1].messages)
    for completed in ("remember the word PLUM", "The first answer.", "now say more", "and then?"):
        assert completed in sent
    assert fake_api.requests[-1].status == 200  # valid: the server checks like the API
    assert SECRET not in transcript_text(home)


def test_kill_while_a_tool_runs_then_continue(fake_api, dirs, tmp_path):
    project, home = dirs
    fifo = tmp_path / "never-written"
    os.mkfifo(fifo)
    call = tool_use("Bash", {"command": f"cat {fifo}"}, id="toolu_blocked")
    fake_api.enqueue(reply(text("Reading the pipe."), call))

    proc = agentcli(
        fake_api,
        project,
        home,
        "-p",
        "read the pipe",
        "--allowedTools",
        "Bash",
        "--output-format",
        "stream-json",
    )
    # Opening the FIFO for writing returns once `cat` opened it: the tool is running.
    holder: list = []
    opener = threading.Thread(
        target=lambda: holder.append(open(fifo, "w")),  # noqa: SIM115  (closed below)
        daemon=True,
    )
    opener.start()
    opener.join(timeout=30)
    assert holder, "the Bash tool never started"
    try:
        kill(proc)
    finally:
        holder[0].close()  # lets the orphaned `cat` end

    fake_api.enqueue(reply(text("The pipe was interrupted.")))
    code, _out, err = continue_run(fake_api, project, home, "what happened?")

    assert code == 0, err
    assert "had no result" in err  # the repair is reported
    messages = fake_api.requests[-1].messages
    results = [
        b
        for m in messages
        if m["role"] == "user" and isinstance(m["content"], list)
        for b in m["content"]
        if b.get("type") == "tool_result"
    ]
    assert [r["tool_use_id"] for r in results] == ["toolu_blocked"]
    assert results[0]["is_error"] is True
    sent = json.dumps(messages)
    assert "read the pipe" in sent and "Reading the pipe." in sent and "what happened?" in sent
    assert fake_api.requests[-1].status == 200
