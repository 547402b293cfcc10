"""`agentcli -p "/name"`: what is not a prompt for the model is not sent as one.

A built-in that needs no app (/cost) answers itself; one that means nothing
headless (/clear), a command file that could not be loaded, an MCP prompt and
an unknown command are errors that say so, before any request. A `!` command
of a custom command is bounded (30 s by default, AGENTCLI_COMMAND_SHELL_TIMEOUT_MS
here) and stopped with everything it started; a signal stops it too.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from agentcli.commands.command_run import HEADLESS_SHELL_TIMEOUT_MS, headless_shell_timeout
from tests.fakeapi import reply, text
from tests.integration.test_headless_cli import agentcli
from tests.integration.test_headless_terminal import environment


def write(path: Path, content: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content)
    return path


def refused(done: subprocess.CompletedProcess[str], server) -> str:
    assert done.returncode == 1, done.stderr
    assert done.stdout == "" and "Traceback" not in done.stderr
    assert server.requests == []  # nothing went to the model
    return done.stderr


@pytest.mark.parametrize("prompt", ["/clear", "/theme light", "/exit", "/help", "/model opus"])
def test_a_built_in_that_means_nothing_headless_is_an_error(fake_api, project, prompt):
    stderr = refused(agentcli(["-p", prompt], project, fake_api), fake_api)

    name = prompt.split()[0]
    assert f"error: {name} works only in the interactive app, not with -p" in stderr


def test_cost_answers_itself_without_a_request(fake_api, project):
    done = agentcli(["-p", "/cost"], project, fake_api)

    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("**Total cost:** $0.0000") and "Turns: 0" in done.stdout
    assert fake_api.requests == []


def test_a_built_ins_answer_is_the_json_result(fake_api, project):
    done = agentcli(["-p", "/context", "--output-format", "json"], project, fake_api)

    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert (result["subtype"], result["is_error"], result["num_turns"]) == ("success", False, 0)
    assert result["result"].startswith("**Context:**") and fake_api.requests == []


def test_a_command_file_that_could_not_be_loaded_says_why(fake_api, project):
    write(project / ".claude/commands/review.md", "---\nmodel: [unclosed\n---\nReview it.\n")
    write(project / ".claude/commands/latin.md", b"caf\xe9\n")

    broken = agentcli(["-p", "/review the diff"], project, fake_api)
    latin = agentcli(["-p", "/latin"], project, fake_api)

    stderr = refused(broken, fake_api)
    assert "error: /review could not be loaded: " in stderr and "review.md" in stderr
    assert "front matter" in stderr
    assert "error: /latin could not be loaded: " in refused(latin, fake_api)
    assert "not UTF-8" in latin.stderr


def test_an_unknown_command_is_an_error_not_a_prompt(fake_api, project):
    stderr = refused(agentcli(["-p", "/frobnicate now"], project, fake_api), fake_api)

    assert "error: unknown command /frobnicate" in stderr


def test_an_mcp_prompt_is_refused_with_the_reason(fake_api, project):
    stderr = refused(agentcli(["-p", "/mcp__tickets__triage"], project, fake_api), fake_api)

    assert "MCP prompts run only in the interactive app" in stderr


@pytest.mark.parametrize("prompt", ["/tmp is full, why?", "/usr/bin/env is missing"])
def test_a_path_at_the_start_of_a_prompt_is_prose(fake_api, project, prompt):
    fake_api.enqueue(reply(text("Let me look.")))

    done = agentcli(["-p", prompt], project, fake_api)

    assert done.returncode == 0, done.stderr
    assert fake_api.requests[0].body["messages"][0]["content"][0]["text"] == prompt


def test_the_headless_bound_on_a_shell_line_and_its_knob():
    assert headless_shell_timeout({}) == (HEADLESS_SHELL_TIMEOUT_MS, None)
    assert HEADLESS_SHELL_TIMEOUT_MS == 30_000  # under the Bash tool's 2 minutes
    assert headless_shell_timeout({"AGENTCLI_COMMAND_SHELL_TIMEOUT_MS": "250"}) == (250, None)
    bound, problem = headless_shell_timeout({"AGENTCLI_COMMAND_SHELL_TIMEOUT_MS": "soon"})
    assert bound == HEADLESS_SHELL_TIMEOUT_MS and "soon" in (problem or "")


def blocking_command(project: Path) -> Path:
    """A command file whose `!` line records its shell's pid and then never ends."""
    pid_file = project / "shell.pid"
    body = f"Context: !`echo $$ > {pid_file}; exec sleep 1000`\n"
    write(project / ".claude/commands/wait.md", body)
    return pid_file


def assert_gone(pid_file: Path) -> None:
    with pytest.raises(ProcessLookupError):
        os.kill(int(pid_file.read_text()), 0)


def test_a_shell_line_that_hangs_is_stopped_at_its_bound_and_said(fake_api, project):
    pid_file = blocking_command(project)
    args = ["-p", "/wait", "--allowedTools", "Bash"]

    done = agentcli(args, project, fake_api, env={"AGENTCLI_COMMAND_SHELL_TIMEOUT_MS": "1500"})

    stderr = refused(done, fake_api)
    assert "/wait: !`echo $$" in stderr and "did not finish in 1.5s" in stderr
    assert "AGENTCLI_COMMAND_SHELL_TIMEOUT_MS" in stderr
    assert_gone(pid_file)


def test_sigterm_stops_a_shell_line_that_runs(fake_api, project):
    fifo = project / "started"
    os.mkfifo(fifo)
    body = f"Context: !`echo $$ > {fifo}; exec sleep 1000`\n"
    write(project / ".claude/commands/wait.md", body)
    proc = subprocess.Popen(
        [sys.executable, "-m", "agentcli", "-p", "/wait", "--allowedTools", "Bash"],
        cwd=project,
        env=environment(fake_api),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    shell: list[int] = []
    reader = threading.Thread(target=lambda: shell.append(int(fifo.read_text())), daemon=True)
    reader.start()
    reader.join(30)
    try:
        assert shell, "the shell line never started"
        proc.send_signal(signal.SIGTERM)
        status = proc.wait(timeout=30)
    finally:
        proc.kill()
    assert status == 128 + signal.SIGTERM
    with pytest.raises(ProcessLookupError):
        os.kill(shell[0], 0)
    assert fake_api.requests == []
