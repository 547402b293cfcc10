"""A reader that goes away: `agentcli -p ... | head -1`, `2>&-`, an SDK client that closes stdout.

The real binary writes into a real pipe whose reading end the test closes. A
closed stdout ends the run quietly and at once (status 141, as a shell reports
SIGPIPE; no traceback; no further model request; running commands killed),
whatever the output format and whether or not anything was being written. A
closed stderr only loses its messages.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from tests.fakeapi import hang, http_error, reply, text, tool_use
from tests.frontends.sdk.raw import user
from tests.integration.test_headless_terminal import environment

STDOUT_GONE = 141


def start(args: list[str], cwd: Path, server, **env: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "agentcli", *args],
        cwd=cwd,
        env={**environment(server), **env},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def ended_quietly(proc: subprocess.Popen[str]) -> str:
    """Wait for the exit (a run that did not notice its reader leave never comes);
    return stderr, which must hold no traceback."""
    try:
        status = proc.wait(timeout=30)
    finally:
        proc.kill()
    err = proc.stderr.read() if proc.stderr else ""
    assert status == STDOUT_GONE, err
    assert "Traceback" not in err and "Error" not in err, err
    return err


def test_stream_json_whose_reader_leaves_after_one_line_stops_the_run(fake_api, project):
    stuck = hang(after_events=3)
    fake_api.enqueue(stuck)
    fake_api.enqueue(reply(text("Never asked for.")))
    proc = start(["-p", "hi", "--output-format", "stream-json"], project, fake_api)
    try:
        assert json.loads(proc.stdout.readline())["subtype"] == "init"
        assert stuck.reached.wait(30)
        proc.stdout.close()  # `| head -1`: the reader had its line
        ended_quietly(proc)
        assert fake_api.requests[0].finished.wait(30)
    finally:
        stuck.release()
    assert len(fake_api.requests) == 1
    assert fake_api.requests[0].outcome == "client_disconnected"  # the stream was dropped


def test_text_output_whose_reader_leaves_before_the_answer_stops_the_run(fake_api, project):
    stuck = hang(after_events=3)
    fake_api.enqueue(stuck)
    proc = start(["-p", "hi"], project, fake_api)
    try:
        assert stuck.reached.wait(30)
        proc.stdout.close()  # nothing was written yet: the pipe itself says so
        ended_quietly(proc)
    finally:
        stuck.release()
    assert len(fake_api.requests) == 1


def test_a_closed_stdout_kills_the_running_command_and_asks_the_model_nothing_more(
    fake_api, project
):
    fifo = project / "started"
    os.mkfifo(fifo)
    command = f"echo $$ > {fifo}; exec sleep 1000"
    fake_api.enqueue(reply(tool_use("Bash", {"command": command})))
    fake_api.enqueue(reply(text("Never asked for.")))
    args = ["-p", "run it", "--output-format", "json", "--permission-mode", "bypassPermissions"]
    proc = start(args, project, fake_api)
    shell: list[int] = []
    reader = threading.Thread(target=lambda: shell.append(int(fifo.read_text())), daemon=True)
    reader.start()
    reader.join(30)
    assert shell, "the command never started"

    proc.stdout.close()
    ended_quietly(proc)

    with pytest.raises(ProcessLookupError):
        os.kill(shell[0], 0)  # the command's process is gone with the run
    assert len(fake_api.requests) == 1


def test_a_closed_stderr_loses_only_its_messages(fake_api, project):
    fake_api.enqueue(http_error(400, "bad request"))
    script = 'exec "$@" 2>&-'  # fd 2 closed: Python starts with sys.stderr None
    done = subprocess.run(
        ["sh", "-c", script, "sh", sys.executable, "-m", "agentcli", "-p", "hi"],
        cwd=project,
        env=environment(fake_api),
        stdin=subprocess.DEVNULL,
        capture_output=False,
        stdout=subprocess.PIPE,
        text=True,
        timeout=60,
    )

    assert done.returncode == 1
    assert done.stdout == ""  # the error meant for stderr did not fall through to stdout


def test_a_stderr_whose_reader_left_does_not_stop_the_answer(fake_api, project):
    fake_api.enqueue(http_error(529, retry_after_ms="1"))  # a retry notice goes to stderr
    fake_api.enqueue(reply(text("Answered anyway.")))
    proc = start(["-p", "hi"], project, fake_api, AGENTCLI_MAX_RETRIES="1")
    proc.stderr.close()

    out = proc.stdout.read()
    status = proc.wait(timeout=60)

    assert (status, out) == (0, "Answered anyway.\n")
    assert len(fake_api.requests) == 2


def test_an_sdk_client_that_closes_stdout_ends_the_session(fake_api, project):
    from tests.frontends.sdk.raw import start as start_sdk

    stuck = hang(after_events=3)
    fake_api.enqueue(stuck)
    proc = start_sdk(fake_api, project)
    try:
        proc.stdin.write(json.dumps(user("hi")) + "\n")
        proc.stdin.flush()
        assert stuck.reached.wait(30)
        proc.stdout.close()  # stdin stays open: only stdout says the client is gone
        ended_quietly(proc)
    finally:
        stuck.release()
        proc.stdin.close()
    assert len(fake_api.requests) == 1
