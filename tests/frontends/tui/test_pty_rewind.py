"""Esc twice in a real terminal opens the rewind, and the rewind undoes the agent's file."""

from __future__ import annotations

import pexpect
import pytest

from tests.fakeapi import reply, text, tool_use
from tests.frontends.tui.pty_support import BINARY, terminal_env
from tests.support.processes import wait_for_exit


def press_esc_until_the_rewind_hint(child: pexpect.spawn, tries: int = 5) -> None:
    """Esc on the empty prompt; while the turn is still ending, Esc only interrupts it
    (nothing shows), so press again until the hint does."""
    for _ in range(tries):
        child.send("\x1b")
        if child.expect(["Press Esc again to rewind", pexpect.TIMEOUT], timeout=3) == 0:
            return
    raise AssertionError("Esc on the empty prompt never offered the rewind")


@pytest.mark.skipif(not BINARY.exists(), reason="agentcli is not installed in this venv")
def test_esc_twice_opens_the_rewind_in_a_terminal(fake_api, tmp_path, isolated_home):
    project = tmp_path / "project"
    project.mkdir()
    created = project / "new.py"
    fake_api.enqueue(reply(tool_use("Write", {"file_path": str(created), "content": "x = 1\n"})))
    fake_api.enqueue(reply(text("Created new.py")))
    child = pexpect.spawn(
        str(BINARY),
        ["--permission-mode", "acceptEdits"],
        cwd=str(project),
        env=terminal_env(fake_api, isolated_home),
        dimensions=(30, 100),
        encoding="utf-8",
        timeout=30,
    )
    try:
        child.expect("Type a message")
        child.send("make new.py")
        child.expect("make new.py")
        child.send("\r")
        child.expect("Created new.py")
        assert created.exists()

        press_esc_until_the_rewind_hint(child)
        child.send("\x1b")
        child.expect("Rewind to before a prompt")
        child.expect("not tracked")
        child.send("\r")  # the latest prompt
        child.expect("What should go back")
        child.send("\r")  # code and conversation
        child.expect("deleted new.py")
        assert not created.exists()

        child.send("\x03")  # clears the prompt the rewind put back
        child.send("\x03")
        child.send("\x03")
        wait_for_exit(child)
    finally:
        child.close(force=True)
    assert child.exitstatus == 0
