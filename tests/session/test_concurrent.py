"""Two `agentcli -p --continue` processes on one session at once, for real.

The first holds the session (its request hangs on the fake server); the second
must not write into the first one's transcript: it forks a new session, says
so, and a later `--continue` reads a history where nothing is interleaved.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.fakeapi import hang, reply, text
from tests.session.test_kill import agentcli

pytestmark = pytest.mark.timeout(90)


def finish(proc) -> tuple[int, str, str]:
    out, err = proc.communicate(timeout=60)
    return proc.returncode, out, err


def texts_of(path: Path) -> list[str]:
    """The text of each message record of a transcript, in order."""
    found = []
    for line in path.read_text().splitlines():
        record = json.loads(line)
        if record["type"] not in ("user", "assistant"):
            continue
        content = record["message"]["content"]
        if isinstance(content, str):
            found.append(content)
        else:
            found.append("".join(b.get("text", "") for b in content if b["type"] == "text"))
    return found


def sent_texts(request) -> list[str]:
    return [
        "".join(b.get("text", "") for b in m["content"] if b["type"] == "text")
        if isinstance(m["content"], list)
        else m["content"]
        for m in request.messages
    ]


def test_a_second_continue_forks_instead_of_interleaving(fake_api, tmp_path):
    project, home = tmp_path / "project", tmp_path / "agentcli-home"
    project.mkdir()
    fake_api.enqueue(reply(text("Noted PLUM.")))
    code, out, err = finish(
        agentcli(fake_api, project, home, "-p", "remember PLUM", "--output-format", "json")
    )
    assert code == 0, err
    original_id = json.loads(out)["session_id"]
    original = next(home.glob(f"projects/*/{original_id}.jsonl"))

    held = hang(reply(text("Answer to A.")), after_events=3)
    fake_api.enqueue(held, reply(text("Answer to B.")))
    first = agentcli(fake_api, project, home, "-p", "question A", "-c", "--output-format", "json")
    try:
        assert held.reached.wait(timeout=30), "the first process never reached the server"
        code, out, err = finish(
            agentcli(fake_api, project, home, "-p", "question B", "-c", "--output-format", "json")
        )
        assert code == 0, err
        fork_id = json.loads(out)["session_id"]
        assert fork_id != original_id
        assert err == (
            f"agentcli: session {original_id} is open in another agentcli process; "
            f"continuing in a new session {fork_id}\n"
        )
        held.release()
        code, out, err = finish(first)
    finally:
        first.kill()
    assert code == 0, err
    assert json.loads(out)["session_id"] == original_id

    # Each file holds its own process's records; the fork starts from the
    # conversation as it stood before the first process's turn began.
    assert texts_of(original) == ["remember PLUM", "Noted PLUM.", "question A", "Answer to A."]
    forked = original.with_name(f"{fork_id}.jsonl")
    assert texts_of(forked) == ["remember PLUM", "Noted PLUM.", "question B", "Answer to B."]
    assert json.loads(forked.read_text().splitlines()[0])["forkedFrom"] == original_id
    assert sent_texts(fake_api.requests[2]) == ["remember PLUM", "Noted PLUM.", "question B"]

    fake_api.enqueue(reply(text("Still here.")))
    code, out, err = finish(
        agentcli(fake_api, project, home, "-p", "and now?", "-c", "--output-format", "json")
    )
    assert code == 0 and err == "", err
    assert json.loads(out)["num_turns"] == 1  # headless results count the run only
    latest = fake_api.requests[-1]
    assert latest.status == 200  # a request the API accepts
    assert sent_texts(latest) == [
        "remember PLUM",
        "Noted PLUM.",
        "question A",
        "Answer to A.",
        "and now?",
    ]

    fake_api.enqueue(reply(text("On the fork.")))
    code, out, err = finish(agentcli(fake_api, project, home, "-p", "fork?", "--resume", fork_id))
    assert code == 0 and err == "", err
    assert sent_texts(fake_api.requests[-1]) == [
        "remember PLUM",
        "Noted PLUM.",
        "question B",
        "Answer to B.",
        "fork?",
    ]
