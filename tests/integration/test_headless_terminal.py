"""`agentcli -p` on a terminal shows text that cannot control it; to a pipe, bytes are kept.

The real binary runs as a subprocess against the fake API, with its stdout
(and stderr) on a pseudo-terminal or on a pipe, and the bytes it wrote there
are read back.
"""

from __future__ import annotations

import errno
import json
import os
import pty
import subprocess
import sys
from pathlib import Path

from agentcli.frontends.headless.output import json_line
from tests.fakeapi import http_error, reply, text

HOSTILE_ANSWER = (
    "Hello \x1b]0;PWNED\x07\x1b[31mred\x1b[0m \x1b[2Jworld\x9b2J\nprogress 10%\rprogress 100%"
)
SHOWN_ANSWER = "Hello red world\nprogress 100%"


def environment(server) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
    env.update(
        ANTHROPIC_API_KEY="test-key",
        ANTHROPIC_BASE_URL=server.base_url,
        AGENTCLI_RETRY_BASE_DELAY_MS="0",
        AGENTCLI_MAX_RETRIES="0",
    )
    return env


def run_on_terminal(args: list[str], cwd: Path, server) -> tuple[int, bytes, bytes]:
    """Run `agentcli` with stdout and stderr each on its own pseudo-terminal."""
    out_master, out_slave = pty.openpty()
    err_master, err_slave = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "agentcli", *args],
        cwd=cwd,
        env=environment(server),
        stdin=subprocess.DEVNULL,
        stdout=out_slave,
        stderr=err_slave,
    )
    os.close(out_slave)
    os.close(err_slave)
    try:
        out, err = read_all(out_master), read_all(err_master)
        return proc.wait(timeout=60), out, err
    finally:
        os.close(out_master)
        os.close(err_master)
        proc.kill()


def read_all(master: int) -> bytes:
    """Everything written to a pty, until its last writer closes it (EIO on Linux)."""
    chunks = []
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError as error:
            if error.errno != errno.EIO:
                raise
            break
        if not chunk:
            break
        chunks.append(chunk)
    return b"".join(chunks)


def run_on_pipes(args: list[str], cwd: Path, server) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "agentcli", *args],
        cwd=cwd,
        env=environment(server),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=60,
    )


def shown(raw: bytes) -> str:
    """What a pty was sent, with its own CRLF line endings back to LF."""
    return raw.decode("utf-8").replace("\r\n", "\n")


def assert_no_control(raw: bytes) -> None:
    text = raw.decode("utf-8")
    controls = [c for c in text if (c < " " and c not in "\n\r\t") or "\x7f" <= c <= "\x9f"]
    assert not controls, f"controls reached the terminal: {text!r}"
    assert "PWNED" not in text


def test_text_answer_on_a_terminal_is_cleaned(fake_api, tmp_path):
    fake_api.enqueue(reply(text(HOSTILE_ANSWER)))

    code, out, err = run_on_terminal(["-p", "hi"], tmp_path, fake_api)

    assert code == 0, err
    assert_no_control(out.replace(b"\r\n", b"\n"))
    assert shown(out) == SHOWN_ANSWER + "\n"


def test_text_answer_to_a_pipe_keeps_its_bytes(fake_api, tmp_path):
    fake_api.enqueue(reply(text(HOSTILE_ANSWER)))

    done = run_on_pipes(["-p", "hi"], tmp_path, fake_api)

    assert done.returncode == 0, done.stderr
    assert done.stdout.decode("utf-8") == HOSTILE_ANSWER + "\n"


def test_json_output_on_a_terminal_escapes_every_control(fake_api, tmp_path):
    fake_api.enqueue(reply(text(HOSTILE_ANSWER)))

    code, out, err = run_on_terminal(["-p", "hi", "--output-format", "json"], tmp_path, fake_api)

    assert code == 0, err
    assert b"\x1b" not in out and "\x9b".encode() not in out and b"\x07" not in out
    assert json.loads(shown(out))["result"] == HOSTILE_ANSWER


def test_stream_json_on_a_terminal_escapes_every_control(fake_api, tmp_path):
    fake_api.enqueue(reply(text(HOSTILE_ANSWER)))

    code, out, err = run_on_terminal(
        ["-p", "hi", "--output-format", "stream-json"], tmp_path, fake_api
    )

    assert code == 0, err
    assert b"\x1b" not in out and "\x9b".encode() not in out and b"\x07" not in out
    lines = [json.loads(line) for line in shown(out).splitlines()]
    assert lines[-1]["result"] == HOSTILE_ANSWER


def test_an_error_quoting_the_server_is_cleaned_on_a_terminal_and_kept_on_a_pipe(
    fake_api, tmp_path
):
    message = "bad \x1b]0;PWNED\x07request\x1b[2J"
    fake_api.enqueue(http_error(400, message))

    code, out, err = run_on_terminal(["-p", "hi"], tmp_path, fake_api)

    assert code == 1 and out == b""
    assert_no_control(err.replace(b"\r\n", b"\n"))
    assert "bad request" in shown(err)

    fake_api.enqueue(http_error(400, message))
    done = run_on_pipes(["-p", "hi"], tmp_path, fake_api)
    assert done.returncode == 1
    assert message.encode() in done.stderr


def test_json_lines_escape_del_and_every_c1_control_and_keep_the_value():
    value = "".join(chr(code) for code in range(0x7F, 0xA0)) + "\x1b\x07 é 漢"
    line = json_line({"result": value})
    assert line.endswith("\n") and json.loads(line) == {"result": value}
    assert not any(c < " " or "\x7f" <= c <= "\x9f" for c in line[:-1])
