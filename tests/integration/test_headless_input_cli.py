"""What `agentcli -p` makes of its input: argv and stdin as bytes, none at all, too much.

Bytes that are not UTF-8 in a prompt reach the API as U+FFFD (the fake API, like
the real one, refuses the lone surrogates Python would otherwise send); in a
value that must be text (`--model`, a rule, AGENTCLI_MODEL) they are refused
before any request. No prompt at all (stdin closed, empty or a terminal) is a
usage error, exit 2. A 5 MB prompt is sent whole; `--max-turns 0` is refused.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pexpect

from tests.fakeapi import reply, text
from tests.support.processes import wait_for_exit
from tests.test_fakeapi import body, post

REPLACED = "caf\ufffd"


def run_bytes(
    args: list[bytes], cwd: Path, server, *, stdin: Any = subprocess.DEVNULL, env: Any = None
) -> subprocess.CompletedProcess[bytes]:
    """`agentcli ARGS` with argv (and stdin, when bytes) given as raw bytes."""
    environ = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
    environ.update(ANTHROPIC_API_KEY="test-key", ANTHROPIC_BASE_URL=server.base_url)
    environ.update(AGENTCLI_RETRY_BASE_DELAY_MS="0", AGENTCLI_MAX_RETRIES="0")
    more = {"input": stdin} if isinstance(stdin, bytes) else {"stdin": stdin}
    return subprocess.run(
        [os.fsencode(sys.executable), b"-m", b"agentcli", *args],
        cwd=cwd,
        env={**{k.encode(): v.encode() for k, v in environ.items()}, **(env or {})},
        capture_output=True,
        timeout=60,
        **more,
    )


def sent_text(server, index: int = 0) -> str:
    return server.requests[index].body["messages"][0]["content"][0]["text"]


def test_the_fake_api_refuses_a_lone_surrogate_as_the_real_one_does(fake_api):
    status, answer = post(fake_api, body([{"role": "user", "content": "caf\udce9"}]))

    assert status == 400 and "not valid JSON" in answer["error"]["message"]


def test_a_prompt_argument_that_is_not_utf8_is_sent_with_replacement_characters(fake_api, project):
    fake_api.enqueue(reply(text("Bonjour.")))

    done = run_bytes([b"-p", b"caf\xe9"], project, fake_api)

    assert done.returncode == 0, done.stderr
    assert done.stdout == b"Bonjour.\n"
    assert sent_text(fake_api) == REPLACED
    assert [r.status for r in fake_api.requests] == [200]


def test_a_piped_prompt_that_is_not_utf8_is_sent_with_replacement_characters(fake_api, project):
    fake_api.enqueue(reply(text("Bonjour.")))

    done = run_bytes([b"-p"], project, fake_api, stdin=b"caf\xe9 \xff\xfe ok\n")

    assert done.returncode == 0, done.stderr
    assert sent_text(fake_api) == "caf\ufffd \ufffd\ufffd ok\n"


def test_a_system_prompt_that_is_not_utf8_is_sent_with_replacement_characters(fake_api, project):
    fake_api.enqueue(reply(text("Bonjour.")))

    done = run_bytes(
        [b"-p", b"hi", b"--system-prompt", b"caf\xe9", b"--append-system-prompt", b"th\xe9"],
        project,
        fake_api,
    )

    assert done.returncode == 0, done.stderr
    system = [block["text"] for block in fake_api.requests[0].body["system"]]
    assert REPLACED in system[0] and "th\ufffd" in "".join(system)


def test_an_extra_folder_whose_name_is_not_utf8_still_works(fake_api, project, tmp_path):
    fake_api.enqueue(reply(text("Fine.")))
    folder = os.fsencode(tmp_path) + b"/caf\xe9"
    os.mkdir(folder)

    done = run_bytes([b"-p", b"hi", b"--add-dir", folder], project, fake_api)

    assert done.returncode == 0, done.stderr
    assert [r.status for r in fake_api.requests] == [200]


def test_a_model_name_that_is_not_utf8_is_refused_before_any_request(fake_api, project):
    done = run_bytes([b"-p", b"hi", b"--model", b"claude-\xe9"], project, fake_api)

    assert done.returncode == 2
    assert b"--model is not valid UTF-8 (byte 0xe9" in done.stderr
    assert b"Traceback" not in done.stderr and fake_api.requests == []


def test_a_rule_or_an_environment_model_that_is_not_utf8_is_refused(fake_api, project):
    rule = run_bytes([b"-p", b"hi", b"--allowedTools", b"Bash(caf\xe9)"], project, fake_api)
    model = run_bytes([b"-p", b"hi"], project, fake_api, env={b"AGENTCLI_MODEL": b"m\xff"})

    assert rule.returncode == 2 and b"--allowedTools is not valid UTF-8" in rule.stderr
    assert model.returncode == 2 and b"AGENTCLI_MODEL is not valid UTF-8" in model.stderr
    assert fake_api.requests == []


def test_no_prompt_with_stdin_closed_says_what_is_missing(fake_api, project):
    done = subprocess.run(
        ["sh", "-c", 'exec "$@" <&-', "sh", sys.executable, "-m", "agentcli", "-p"],
        cwd=project,
        env={**os.environ, "ANTHROPIC_API_KEY": "k", "ANTHROPIC_BASE_URL": fake_api.base_url},
        capture_output=True,
        text=True,
        timeout=60,
    )

    assert done.returncode == 2, done.stderr
    assert "needs a prompt" in done.stderr and "stdin is closed" in done.stderr
    assert "Traceback" not in done.stderr and fake_api.requests == []


def test_no_prompt_with_stdin_empty_says_what_is_missing(fake_api, project):
    done = run_bytes([b"-p"], project, fake_api, stdin=b"")

    assert done.returncode == 2 and b"stdin was empty" in done.stderr
    assert fake_api.requests == []


def test_no_prompt_with_stdin_a_terminal_does_not_wait_for_one(fake_api, project):
    env = {**os.environ, "ANTHROPIC_API_KEY": "k", "ANTHROPIC_BASE_URL": fake_api.base_url}
    child = pexpect.spawn(
        sys.executable, ["-m", "agentcli", "-p"], cwd=str(project), env=env, timeout=30
    )
    try:
        child.expect("needs a prompt")
        child.expect("stdin is a terminal")
        wait_for_exit(child)
    finally:
        child.close(force=True)
    assert child.exitstatus == 2 and fake_api.requests == []


def test_a_five_megabyte_prompt_on_stdin_is_sent_whole(fake_api, project):
    fake_api.enqueue(reply(text("That is long.")))
    prompt = ("0123456789abcdé\n" * 320_000).encode()  # 5.4 MB, not all ASCII

    done = run_bytes([b"-p", b"--output-format", b"json"], project, fake_api, stdin=prompt)

    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["result"] == "That is long."
    assert sent_text(fake_api).encode() == prompt


def test_max_turns_0_is_refused_before_any_request(fake_api, project):
    done = run_bytes([b"-p", b"hi", b"--max-turns", b"0"], project, fake_api)

    assert done.returncode == 2
    assert b"--max-turns: must be at least 1" in done.stderr and fake_api.requests == []
