"""A dragged-in image through the real binary: the terminal's bracketed paste of the
file's path becomes `[Image #1]`, and the fake API gets the file's bytes."""

from __future__ import annotations

import base64
import io

import pytest
from PIL import Image

from tests.fakeapi import reply, text
from tests.frontends.tui.pty_support import BINARY, spawn_app
from tests.support.processes import wait_for_exit


@pytest.mark.skipif(not BINARY.exists(), reason="agentcli is not installed in this venv")
def test_a_bracketed_paste_of_an_image_path_sends_the_image(fake_api, tmp_path, isolated_home):
    fake_api.enqueue(reply(text("A small green picture")))
    project = tmp_path / "project"
    project.mkdir()
    shot = project / "Screen Shot.png"
    out = io.BytesIO()
    Image.new("RGB", (30, 20), (0, 200, 0)).save(out, format="PNG")
    shot.write_bytes(out.getvalue())
    child = spawn_app(project, fake_api, isolated_home)
    try:
        child.expect("Type a message")
        escaped = str(shot).replace(" ", "\\ ")  # as iTerm2 and Terminal.app paste it
        child.send("\x1b[200~" + escaped + " \x1b[201~")
        child.expect_exact("[Image #1]")
        child.send("what is it?")
        child.expect_exact("what is it?")
        child.send("\r")
        child.expect("A small green picture")
        request = fake_api.requests[0]
        assert request.status == 200, request.error
        image, words = request.body["messages"][0]["content"]
        assert image["source"]["media_type"] == "image/png"
        assert base64.b64decode(image["source"]["data"]) == shot.read_bytes()
        assert (words["type"], words["text"]) == ("text", "[Image #1] what is it?")
        child.send("\x03")
        child.send("\x03")
        wait_for_exit(child)
    finally:
        child.close(force=True)
    assert child.exitstatus == 0
