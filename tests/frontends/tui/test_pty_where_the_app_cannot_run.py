"""`agentcli` (the app) where it cannot draw or read keys says so and exits, at once;
with TERM unset it starts. The installed binary, in a pseudo-terminal or not."""

from __future__ import annotations

import subprocess

import pexpect
import pytest

from tests.frontends.tui.pty_support import BINARY, terminal_env
from tests.support.processes import wait_for_exit

pytestmark = pytest.mark.skipif(not BINARY.exists(), reason="agentcli is not installed here")


def spawn(env: dict[str, str], cwd) -> pexpect.spawn:
    return pexpect.spawn(
        str(BINARY), [], cwd=str(cwd), env=env, dimensions=(30, 100), encoding="utf-8", timeout=30
    )


def test_term_dumb_says_why_the_app_cannot_start(fake_api, tmp_path, isolated_home):
    env = {**terminal_env(fake_api, isolated_home), "TERM": "dumb"}
    child = spawn(env, tmp_path)
    try:
        wait_for_exit(child)  # it exits by itself; nothing waits for keys
    finally:
        child.close(force=True)
    shown = " ".join(str(child.before).split())  # the terminal's line wrapping undone
    assert child.exitstatus == 1
    assert "cannot move the cursor (TERM=dumb)" in shown and "agentcli -p" in shown
    assert "\x1b[?1049h" not in shown  # the app's screen never opened


def test_term_unset_starts_the_app(fake_api, tmp_path, isolated_home):
    env = terminal_env(fake_api, isolated_home)
    env.pop("TERM")
    child = spawn(env, tmp_path)
    try:
        child.expect("Type a message")
        child.send("\x03")
        child.send("\x03")
        wait_for_exit(child)
    finally:
        child.close(force=True)
    assert child.exitstatus == 0


def test_stdin_that_is_not_a_terminal_says_so_instead_of_waiting(fake_api, tmp_path, isolated_home):
    done = subprocess.run(
        [str(BINARY)],
        cwd=tmp_path,
        env=terminal_env(fake_api, isolated_home),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=30,
    )

    assert done.returncode == 1
    assert "stdin is not one" in done.stderr and "agentcli -p" in done.stderr
    assert "\x1b[" not in done.stderr  # nothing drawn
