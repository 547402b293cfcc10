"""The installed binary in a real pseudo-terminal: a command's output cannot reach it raw.

The model (the fake API) runs `cat` on a file holding a title sequence, a
clipboard write and a screen clear. Everything the pty receives is recorded:
the file's words arrive, its sequences never do.
"""

from __future__ import annotations

import io

import pexpect
import pytest

from tests.fakeapi import reply, text, tool_use
from tests.frontends.tui.pty_support import BINARY, terminal_env

# The first line is the one the finished pane's summary shows.
HOSTILE_FILE = (
    b"visible-start \x1b]0;PWNED\x07\x1b]52;c;cm0gLXJmIH4=\x07\x1b[2J\x1b[H\xc2\x9b2J"
    b"visible-end\nsecond line\n"
)


@pytest.mark.skipif(not BINARY.exists(), reason="agentcli is not installed in this venv")
def test_a_command_printing_escapes_never_puts_them_on_the_terminal(
    fake_api, tmp_path, isolated_home
):
    project = tmp_path / "project"
    project.mkdir()
    (project / "notes.txt").write_bytes(HOSTILE_FILE)
    fake_api.enqueue(reply(tool_use("Bash", {"command": "cat notes.txt"})))
    fake_api.enqueue(reply(text("All-done-here")))
    env = terminal_env(fake_api, isolated_home)
    received = io.BytesIO()
    child = pexpect.spawn(
        str(BINARY),
        ["--allowedTools", "Bash"],
        cwd=str(project),
        env=env,
        dimensions=(30, 100),
        timeout=30,
    )
    child.logfile_read = received
    try:
        child.expect("Type a message")
        child.send("show me the notes")
        child.expect("show me the notes")
        child.send("\r")
        child.expect("All-done-here")
        child.send("\x03")
        child.send("\x03")
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
        # Checked even when an expect failed: a sequence that reached the
        # terminal is the first thing to know about.
        screen = received.getvalue()
        assert b"]0;PWNED" not in screen
        assert b"PWNED" not in screen
        assert b"]52;" not in screen
        assert b"\xc2\x9b" not in screen
    assert b"visible-start" in screen and b"visible-end" in screen
