"""AskUserQuestion through the installed binary in a real pseudo-terminal, against the
fake API: the app shows the model's question, a key answers it, and the model's next
request carries the answer in Claude Code's words."""

from __future__ import annotations

import pexpect
import pytest

from tests.fakeapi import reply, text, tool_use
from tests.frontends.tui.pty_support import BINARY, spawn_app

QUESTION = {
    "question": "Which library?",
    "header": "Library",
    "options": [
        {"label": "httpx", "description": "async and sync"},
        {"label": "requests", "description": "the classic"},
    ],
}
KEY_TRIES = 20  # the question ignores keys for its first quarter second (the key guard)


@pytest.mark.skipif(not BINARY.exists(), reason="agentcli is not installed in this venv")
def test_the_person_answers_the_models_question_in_a_terminal(fake_api, tmp_path, isolated_home):
    fake_api.enqueue(reply(tool_use("AskUserQuestion", {"questions": [QUESTION]})))
    fake_api.enqueue(reply(text("Going with the answer")))
    project = tmp_path / "project"
    project.mkdir()
    child = spawn_app(project, fake_api, isolated_home)
    try:
        child.expect("Type a message")
        child.send("set up the client\r")
        child.expect("Which library")
        child.expect("Other")
        offered = [tool["name"] for tool in fake_api.requests[0].body["tools"]]
        assert "AskUserQuestion" in offered
        for _ in range(KEY_TRIES):  # until the guard lets the key through
            child.send("2")
            if child.expect([pexpect.TIMEOUT, "Answered 1 question"], timeout=3) == 1:
                break
        else:
            raise AssertionError("the question never took the key")
        child.expect("Going with the answer")
        result = fake_api.requests[1].body["messages"][-1]["content"][0]
        assert result["type"] == "tool_result" and not result.get("is_error")
        assert result["content"] == (
            'User has answered your questions: "Which library?"="requests". '
            "You can now continue with the user's answers in mind."
        )
        child.send("\x03")  # arms the exit; or first clears a key the guard let through late
        if child.expect(["Press Ctrl\\+C again to exit", pexpect.TIMEOUT], timeout=5) == 1:
            child.send("\x03")
            child.expect("Press Ctrl\\+C again to exit")
        child.send("\x03")
        child.expect("Resume this session with: agentcli --resume ")
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
