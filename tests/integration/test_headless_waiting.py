"""`agentcli -p` while the API does not answer: every retry shows on stderr, the
waiting ends within the configured bounds, and bad settings are named.

The real binary runs as a subprocess against real sockets, with tiny delays and
timeouts set through the environment so nothing waits long.
"""

from __future__ import annotations

import json
import re
import socket
from pathlib import Path

import pytest

from tests.fakeapi import hang, http_error, reply, text
from tests.support.cli import agentcli_env, run_agentcli
from tests.support.projects import new_project


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return new_project(tmp_path)  # empty: not this folder's project with config.py


def agentcli(args: list[str], cwd: Path, base_url: str, **env: str):
    """`agentcli ARGS` against `base_url`; the tuning variables are unset (tests/conftest.py)
    but for those in `env`."""
    return run_agentcli(args, cwd, agentcli_env(ANTHROPIC_BASE_URL=base_url, **env))


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_nothing_listening_shows_each_retry_then_gives_up(project):
    url = f"http://127.0.0.1:{closed_port()}"

    done = agentcli(["-p", "hello"], project, url, AGENTCLI_MAX_RETRIES="3")

    assert done.returncode == 1 and done.stdout == ""
    lines = done.stderr.splitlines()
    assert lines[:3] == [
        "agentcli: retrying in 0 s (1/3): connection refused",
        "agentcli: retrying in 0 s (2/3): connection refused",
        "agentcli: retrying in 0 s (3/3): connection refused",
    ]
    assert len(lines) == 4
    assert re.fullmatch(
        r"agentcli: error: connection refused; gave up after 4 attempts in [\d.]+ s\. "
        rf"Check that {re.escape(url)} is the right address \(ANTHROPIC_BASE_URL\) "
        r"and that the network is up\.",
        lines[3],
    ), lines[3]


def test_json_mode_keeps_stdout_one_object_and_shows_retries_on_stderr(project):
    url = f"http://127.0.0.1:{closed_port()}"

    done = agentcli(
        ["-p", "hello", "--output-format", "json"], project, url, AGENTCLI_MAX_RETRIES="1"
    )

    result = json.loads(done.stdout)  # one object, nothing else
    assert result["is_error"] is True and "connection refused" in result["result"]
    assert "agentcli: retrying in 0 s (1/1): connection refused" in done.stderr.splitlines()
    assert done.returncode == 1


def test_a_server_that_never_answers_is_retried_after_the_idle_timeout(fake_api, project):
    fake_api.enqueue(hang(before_headers=True))
    # The good answer is the default: a spurious extra timeout costs a retry, not the test.
    fake_api.default = reply(text("Answered on the second try."))

    done = agentcli(
        ["-p", "hello"], project, fake_api.base_url, AGENTCLI_STREAM_IDLE_TIMEOUT_MS="200"
    )

    assert done.returncode == 0, done.stderr
    assert done.stdout == "Answered on the second try.\n"
    first, *_ = done.stderr.splitlines()
    assert first == "agentcli: retrying in 0 s (1/8): no response for 0.2 s"


def test_claude_codes_api_timeout_ms_sets_the_wait_when_ours_is_unset(fake_api, project):
    fake_api.enqueue(hang(before_headers=True))
    fake_api.default = reply(text("ok"))

    done = agentcli(["-p", "hello"], project, fake_api.base_url, API_TIMEOUT_MS="200")

    assert done.returncode == 0, done.stderr
    assert done.stderr.startswith("agentcli: retrying in 0 s (1/8): no response for 0.2 s\n")


def test_the_time_budget_ends_the_retrying_before_max_retries(fake_api, project):
    fake_api.default = hang(before_headers=True)

    done = agentcli(
        ["-p", "hello"],
        project,
        fake_api.base_url,
        AGENTCLI_STREAM_IDLE_TIMEOUT_MS="200",
        AGENTCLI_RETRY_MAX_TOTAL_MS="1000",
        AGENTCLI_MAX_RETRIES="100",
    )

    assert done.returncode == 1
    *retries, error = done.stderr.splitlines()
    assert 1 <= len(retries) < 100  # each attempt waits 0.2 s: a 1 s budget allows a few
    assert all(line.endswith("/100): no response for 0.2 s") for line in retries)
    attempts = len(retries) + 1
    assert error.startswith(
        f"agentcli: error: no response for 0.2 s; gave up after {attempts} attempts in "
    )
    assert "the retry time limit of 1 s (AGENTCLI_RETRY_MAX_TOTAL_MS) is spent" in error


def test_a_long_retry_after_ends_the_retrying_and_says_what_the_server_asked(fake_api, project):
    fake_api.enqueue(http_error(429, retry_after="120"))

    done = agentcli(
        ["-p", "hello"], project, fake_api.base_url, AGENTCLI_RETRY_MAX_TOTAL_MS="60000"
    )

    assert done.returncode == 1
    (error,) = done.stderr.splitlines()
    assert error.startswith("agentcli: error: API Error 429: ")
    assert "the server asked to wait 2 min" in error
    assert len(fake_api.requests) == 1


def test_malformed_settings_are_named_and_the_defaults_used(fake_api, project):
    fake_api.enqueue(reply(text("fine")))

    done = agentcli(
        ["-p", "hello"],
        project,
        fake_api.base_url,
        AGENTCLI_MAX_RETRIES="lots",
        AGENTCLI_RETRY_BASE_DELAY_MS="fast",
        AGENTCLI_RETRY_MAX_TOTAL_MS="10m",
        AGENTCLI_STREAM_IDLE_TIMEOUT_MS="-5",
    )

    assert done.returncode == 0, done.stderr
    assert done.stdout == "fine\n"
    assert done.stderr.splitlines() == [
        "agentcli: warning: AGENTCLI_MAX_RETRIES=lots is not a whole number, 0 or more; using 8",
        "agentcli: warning: AGENTCLI_RETRY_BASE_DELAY_MS=fast is not a number of milliseconds,"
        " 0 or more; using 500",
        "agentcli: warning: AGENTCLI_RETRY_MAX_TOTAL_MS=10m is not a number of milliseconds"
        " above 0; using 600000",
        "agentcli: warning: AGENTCLI_STREAM_IDLE_TIMEOUT_MS=-5 is not a number of milliseconds"
        " above 0; using 120000",
    ]


def test_stream_json_retry_lines_have_claude_codes_fields(fake_api, project):
    fake_api.enqueue(http_error(529), reply(text("after the retry")))

    done = agentcli(["-p", "hello", "--output-format", "stream-json"], project, fake_api.base_url)

    lines = [json.loads(line) for line in done.stdout.splitlines()]
    (retry,) = [line for line in lines if line.get("subtype") == "api_retry"]
    assert retry["type"] == "system"
    assert retry["attempt"] == 1 and retry["max_retries"] == 8
    assert retry["retry_delay_ms"] == 0 and retry["error_status"] == 529
    assert retry["error"] == "overloaded"  # Claude Code's category, not free text
    assert retry["error_message"] == "API Error 529: Overloaded"
    assert done.stderr == ""  # stdout carries the retry; nothing doubled on stderr
