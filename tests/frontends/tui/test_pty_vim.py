"""Vim keys through the real binary in a pty: `editorMode: "vim"` from the user's settings,
normal-mode edits of a typed prompt, and Enter sending what the edits left."""

from __future__ import annotations

import json

import pytest

from tests.fakeapi import reply, text
from tests.frontends.tui.pty_support import BINARY, spawn_app
from tests.support.processes import wait_for_exit


@pytest.mark.skipif(not BINARY.exists(), reason="agentcli is not installed in this venv")
def test_vim_keys_edit_the_prompt_before_it_is_sent(fake_api, tmp_path, isolated_home):
    fake_api.enqueue(reply(text("Edited prompt received")))
    project = tmp_path / "project"
    project.mkdir()
    user_settings = isolated_home / ".agentcli" / "settings.json"  # the person's own file
    user_settings.parent.mkdir(parents=True, exist_ok=True)
    user_settings.write_text(json.dumps({"editorMode": "vim"}))
    child = spawn_app(project, fake_api, isolated_home)
    try:
        child.expect_exact("-- INSERT --")  # on the prompt's border, from the first frames
        child.send("fix the old tests now")
        child.expect_exact("fix the old tests now")
        child.send("\x1b")  # Esc: normal mode
        child.expect_exact("-- NORMAL --")
        # b b: back two words to "tests"; dw deletes it; 0 to the start; w to "the"; cw
        # changes "the" into "all" (insert mode again); Esc; $ to the end; x deletes the
        # last letter. Esc goes alone: a key right after it would read as Alt+key.
        child.send("bbdw0wcwall")
        child.expect_exact("-- INSERT --")
        child.send("\x1b")
        child.expect_exact("-- NORMAL --")
        child.send("$x")
        child.send("\r")
        child.expect("Edited prompt received")
        request = fake_api.requests[0]
        assert request.status == 200, request.error
        assert request.body["messages"][0]["content"][-1]["text"] == "fix all old no"
        child.send("\x03")
        child.send("\x03")
        wait_for_exit(child)
    finally:
        child.close(force=True)
    assert child.exitstatus == 0
