"""`agentcli -p` run as a real subprocess against the fake API server."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

from tests.fakeapi import hang, http_error, reply, text, tool_use
from tests.support.cli import agentcli_env, run_agentcli


def agentcli(
    args: list[str],
    cwd: Path,
    server=None,
    *,
    stdin: str | None = None,
    key: bool = True,
    env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """`agentcli ARGS` in `cwd`; `env`: more variables (the run's own below win)."""
    environment = agentcli_env(key=None, **(env or {}))
    environment["AGENTCLI_RETRY_BASE_DELAY_MS"] = "0"
    if key:
        environment["ANTHROPIC_API_KEY"] = "test-key"
    if server is not None:
        environment["ANTHROPIC_BASE_URL"] = server.base_url
    return run_agentcli(args, cwd, environment, stdin=stdin)


def seed_script(server, config: Path) -> None:
    server.enqueue(reply(text("Let me read it."), tool_use("Read", {"file_path": str(config)})))
    edit = {"file_path": str(config), "old_string": "value = 1", "new_string": "value = 2"}
    server.enqueue(reply(tool_use("Edit", edit)))
    server.enqueue(reply(text("Changed value to 2 in config.py.")))


def test_seed_example_edits_the_file_and_prints_the_answer(fake_api, project):
    seed_script(fake_api, project / "config.py")

    done = agentcli(
        ["-p", "Change value to 2", "--permission-mode", "acceptEdits"], project, fake_api
    )

    assert done.returncode == 0, done.stderr
    assert done.stdout == "Changed value to 2 in config.py.\n"
    assert (project / "config.py").read_text() == "value = 2\n"
    assert done.stderr == ""


def test_json_output_has_the_result_fields(fake_api, project):
    seed_script(fake_api, project / "config.py")

    done = agentcli(
        ["-p", "Change value to 2", "--permission-mode", "acceptEdits", "--output-format", "json"],
        project,
        fake_api,
    )

    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["type"] == "result" and result["subtype"] == "success"
    assert result["is_error"] is False
    assert result["result"] == "Changed value to 2 in config.py."
    assert result["num_turns"] == 3
    assert result["session_id"] and result["duration_ms"] >= 0
    assert result["usage"]["output_tokens"] > 0 and result["total_cost_usd"] > 0
    assert result["stop_reason"] == "end_turn" and result["terminal_reason"] == "completed"
    assert result["permission_denials"] == [] and result["duration_api_ms"] >= 0


def test_stream_json_emits_init_messages_and_result(fake_api, project):
    seed_script(fake_api, project / "config.py")

    done = agentcli(
        ["-p", "Change value to 2", "--permission-mode=acceptEdits", "--output-format=stream-json"],
        project,
        fake_api,
    )

    lines = [json.loads(line) for line in done.stdout.splitlines()]
    init = lines[0]
    assert (init["type"], init["subtype"]) == ("system", "init")
    assert init["cwd"] == str(project.resolve()) and init["permissionMode"] == "acceptEdits"
    assert "Read" in init["tools"] and "Edit" in init["tools"] and init["model"]
    kinds = [line["type"] for line in lines]
    assert kinds == ["system", "assistant", "user", "assistant", "user", "assistant", "result"]
    tool_result = lines[2]["message"]["content"][0]
    assert tool_result["type"] == "tool_result"
    assert tool_result["tool_use_id"] == lines[1]["message"]["content"][1]["id"]
    assert {line["session_id"] for line in lines} == {init["session_id"]}


def test_prompt_from_stdin(fake_api, project):
    fake_api.enqueue(reply(text("Hi from stdin.")))

    done = agentcli(["-p"], project, fake_api, stdin="hello there\n")

    assert done.returncode == 0 and done.stdout == "Hi from stdin.\n"
    assert fake_api.requests[0].body["messages"][0]["content"][0]["text"] == "hello there\n"


def test_default_mode_refuses_an_edit_and_tells_the_model(fake_api, project):
    seed_script(fake_api, project / "config.py")

    done = agentcli(["-p", "Change value to 2"], project, fake_api)

    assert (project / "config.py").read_text() == "value = 1\n"
    refusal = fake_api.requests[2].body["messages"][4]["content"][0]
    assert refusal["is_error"] is True
    assert refusal["content"] == (
        "The user denied permission to use Edit; it did not run and nothing was changed. "
        "The user said: This is a non-interactive run, so Edit could not be approved "
        "(it changes a file). It can be allowed with --permission-mode acceptEdits (edits) "
        "or --allowedTools."
    )
    assert done.returncode == 0  # the run itself completed; the model was told


def test_allowed_tools_flag_permits_the_edit(fake_api, project):
    seed_script(fake_api, project / "config.py")

    done = agentcli(["-p", "Change value to 2", "--allowedTools", "Read,Edit"], project, fake_api)

    assert done.returncode == 0, done.stderr
    assert (project / "config.py").read_text() == "value = 2\n"


def test_disallowed_tool_is_hidden_from_the_model(fake_api, project):
    fake_api.enqueue(reply(text("ok")))

    agentcli(["-p", "hi", "--disallowedTools", "Edit"], project, fake_api)

    names = [tool["name"] for tool in fake_api.requests[0].body["tools"]]
    assert "Edit" not in names and "Read" in names


def test_max_turns_is_an_error_result_with_exit_1(fake_api, project):
    fake_api.enqueue(reply(tool_use("Read", {"file_path": str(project / "config.py")})))

    done = agentcli(["-p", "go", "--max-turns", "1", "--output-format", "json"], project, fake_api)

    assert done.returncode == 1
    result = json.loads(done.stdout)
    assert result["subtype"] == "error_max_turns" and result["is_error"] is True
    assert result["num_turns"] == 1
    assert done.stderr.strip() == "agentcli: error: reached the limit of 1 turns"
    assert len(fake_api.requests) == 1


def test_api_error_is_one_clear_line_on_stderr(fake_api, project):
    fake_api.enqueue(http_error(400, message="prompt is too long: 300000 tokens > 200000 maximum"))

    done = agentcli(["-p", "hello"], project, fake_api)

    assert done.returncode == 1
    assert done.stdout == ""
    assert done.stderr == (
        "agentcli: error: API Error 400: prompt is too long: 300000 tokens > 200000 maximum\n"
    )


def test_no_api_key_says_how_to_set_one(project):
    done = agentcli(["-p", "hello"], project, key=False)

    assert done.returncode == 1
    assert "ANTHROPIC_API_KEY" in done.stderr and "export" in done.stderr
    assert "Traceback" not in done.stderr


def test_empty_prompt_is_refused(project):
    done = agentcli(["-p", "   "], project)

    assert done.returncode == 2 and "needs a prompt" in done.stderr


def test_everything_is_written_under_agentcli_home(fake_api, project, tmp_path, isolated_home):
    fake_api.enqueue(reply(text("ok")))

    agentcli(["-p", "hello"], project, fake_api)

    home_files = {p for p in isolated_home.rglob("*") if p.is_file()}
    outside = {p for p in home_files if not p.is_relative_to(isolated_home / ".agentcli")}
    assert outside == set()


def test_version_is_fast_to_answer_and_imports_nothing_heavy(project):
    probe = (
        "import sys, runpy; sys.argv=['agentcli','--version'];"
        "\ntry:\n runpy.run_module('agentcli', run_name='__main__')\nexcept SystemExit: pass"
        "\nheavy=[m for m in ('anthropic','textual','pydantic','httpx') if m in sys.modules]"
        "\nprint('HEAVY', heavy)"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=project, capture_output=True, text=True, timeout=30
    )
    assert done.stdout.splitlines()[0].startswith("agentcli ")
    assert done.stdout.splitlines()[-1] == "HEAVY []"


def test_stream_json_reports_api_retries(fake_api, project):
    fake_api.enqueue(http_error(429, retry_after="0"))
    fake_api.enqueue(reply(text("after the retry")))

    done = agentcli(["-p", "hello", "--output-format", "stream-json"], project, fake_api)

    lines = [json.loads(line) for line in done.stdout.splitlines()]
    (retry,) = [line for line in lines if line.get("subtype") == "api_retry"]
    assert retry["attempt"] == 1 and retry["error_status"] == 429
    assert retry["error"] == "rate_limit" and "API Error 429" in retry["error_message"]
    assert lines[-1]["result"] == "after the retry" and done.returncode == 0


def test_ctrl_c_interrupts_the_turn_cleanly(fake_api, project):
    stuck = hang(reply(text("a long answer that never ends")), after_events=4)
    fake_api.enqueue(stuck)
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
    env.update(ANTHROPIC_API_KEY="test-key", ANTHROPIC_BASE_URL=fake_api.base_url)
    proc = subprocess.Popen(
        [sys.executable, "-m", "agentcli", "-p", "tell me", "--output-format", "json"],
        cwd=project,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert stuck.reached.wait(30), "the request never reached the server"
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    finally:
        proc.kill()

    assert proc.returncode == 1
    result = json.loads(out)
    assert result["subtype"] == "error_during_execution"
    assert result["terminal_reason"] == "aborted_streaming"
    assert err.strip() == "agentcli: error: interrupted"
