"""The installed `agentcli` binary in a real pseudo-terminal, against the fake API."""

from __future__ import annotations

import pexpect
import pytest

from tests.fakeapi import reply, text
from tests.frontends.tui.pty_support import BINARY, terminal_env
from tests.support.processes import wait_for_exit


@pytest.mark.skipif(not BINARY.exists(), reason="agentcli is not installed in this venv")
def test_binary_answers_a_prompt_in_a_terminal_and_exits_cleanly(fake_api, tmp_path, isolated_home):
    fake_api.enqueue(reply(text("Hello from the fake server")))
    project = tmp_path / "project"
    project.mkdir()
    env = terminal_env(fake_api, isolated_home)
    child = pexpect.spawn(
        str(BINARY),
        [],
        cwd=str(project),
        env=env,
        dimensions=(30, 100),
        encoding="utf-8",
        timeout=30,
    )
    try:
        child.expect("Type a message")
        child.send("hello from the pty")
        child.expect("hello from the pty")
        child.send("\r")
        child.expect("Hello from the fake server")
        assert (
            fake_api.requests[0].body["messages"][0]["content"][0]["text"] == "hello from the pty"
        )
        child.send("\x03")
        child.send("\x03")
        child.expect("Resume this session with: agentcli --resume ")
        wait_for_exit(child)
    finally:
        child.close(force=True)
    assert child.exitstatus == 0
