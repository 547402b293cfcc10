"""A `can_use_tool` answer a well-behaved SDK never sends still ends its question.

The real SDK cannot send these (it builds `updatedPermissions` from typed
objects), so the program here speaks the stream-json protocol itself: it
waits for the question, answers it with an update whose rules are not rule
objects, and then sends nothing more. Before, reading such an answer raised
inside the task that asked, the question was never answered, and the session
waited for it for ever. Now the call is allowed as the program said, the
update that cannot be read is named on stderr, and the turn ends.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.fakeapi import reply, text, tool_use
from tests.frontends.sdk.raw import start, user

ASK = ["--permission-prompt-tool", "stdio"]


def next_line(process: subprocess.Popen[str], kind: str) -> dict[str, Any]:
    """The next stdout object of `kind` (the ones before it are skipped)."""
    assert process.stdout is not None
    while line := process.stdout.readline():
        message = json.loads(line)
        if message["type"] == kind:
            return message
    raise AssertionError(f"stdout ended before a {kind} line")


def allow_with(request_id: str, updates: Any) -> dict[str, Any]:
    return {
        "type": "control_response",
        "response": {
            "subtype": "success",
            "request_id": request_id,
            "response": {"behavior": "allow", "updatedPermissions": updates},
        },
    }


@pytest.mark.parametrize(
    "rules",
    [
        "Write",  # a string, not a list of rules
        ["Write"],  # rules that are not objects
        [{"toolName": 5}],  # a tool name that is not text
        [{"ruleContent": "x"}],  # no tool name
    ],
)
def test_an_allow_whose_rules_cannot_be_read_still_ends_the_turn(fake_api, project: Path, rules):
    target = project / "written.txt"
    write = {"file_path": str(target), "content": "yes\n"}
    fake_api.enqueue(reply(tool_use("Write", write)))
    fake_api.enqueue(reply(text("Written.")))
    process = start(fake_api, project, *ASK)
    assert process.stdin is not None
    process.stdin.write(json.dumps(user("go")) + "\n")
    process.stdin.flush()

    question = next_line(process, "control_request")
    assert question["request"]["subtype"] == "can_use_tool"
    update = {"type": "addRules", "behavior": "allow", "destination": "session", "rules": rules}
    process.stdin.write(json.dumps(allow_with(question["request_id"], [update])) + "\n")
    process.stdin.flush()
    result = next_line(process, "result")
    _, err = process.communicate("", timeout=60)  # stdin ends: the session ends

    assert result["subtype"] == "success" and result["result"] == "Written."
    assert target.read_text() == "yes\n"  # allowed, as the program said
    assert "updatedPermissions: a rule could not be read" in err
    assert "Traceback" not in err
    assert process.returncode == 0
