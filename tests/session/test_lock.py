"""One writer per transcript: a session open in one writer is forked by the next,
and the lock goes with the writer: when it closes, and when its process dies."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from agentcli.session.claim import claim_session
from agentcli.session.loader import load_session
from agentcli.session.resume import SessionNotFound, resolve_resumed
from agentcli.wiring.composition import finish_session
from tests.engine.harness import make_engine, run_turn
from tests.engine.scripted import Response, ScriptedProvider, text

pytestmark = pytest.mark.timeout(60)


async def open_session(project: Path, prompt: str = "first question"):
    """An engine with a live transcript writer after one exchange."""
    engine = make_engine(
        ScriptedProvider(Response([text("First answer.")])), [], project, session=True
    )
    writer = engine.transcript
    await run_turn(engine, prompt)
    return engine, writer


async def test_a_session_open_in_another_writer_is_forked_and_left_alone(tmp_path):
    engine, writer = await open_session(tmp_path)
    before = writer.path.read_bytes()

    forked = claim_session(writer.path)

    assert forked.forked_from == engine.session_id
    assert forked.session_id != engine.session_id
    assert forked.path == writer.path.with_name(f"{forked.session_id}.jsonl")
    assert forked.notices == [
        f"session {engine.session_id} is open in another agentcli process; "
        f"continuing in a new session {forked.session_id}"
    ]
    assert forked.messages == engine.messages
    assert not forked.path.exists()  # written with the fork's first message, like any session

    provider = ScriptedProvider(Response([text("Forked answer.")]))
    again = make_engine(provider, [], tmp_path, session=True, resumed=forked)
    fork_writer = again.transcript
    await run_turn(again, "second question")
    finish_session(again)

    assert writer.path.read_bytes() == before
    reloaded = load_session(fork_writer.path)
    assert reloaded.session_id == forked.session_id and reloaded.notices == []
    assert [m["content"][0]["text"] for m in reloaded.messages[2:]] == [
        "second question",
        "Forked answer.",
    ]
    header = json.loads(fork_writer.path.read_text().splitlines()[0])
    assert header["sessionId"] == forked.session_id
    assert header["forkedFrom"] == engine.session_id


async def test_continue_goes_on_in_place_once_the_writer_is_closed(tmp_path):
    engine, _writer = await open_session(tmp_path)
    finish_session(engine)

    resumed = resolve_resumed(tmp_path, continue_latest=True)

    assert resumed.session_id == engine.session_id and resumed.forked_from is None
    # Held now by this resume: the next one forks.
    assert claim_session(resumed.path).forked_from == engine.session_id
    resumed.release()
    again = claim_session(resumed.path)
    assert again.forked_from is None
    again.release()


HOLDER = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from agentcli.session.claim import claim_session

    held = claim_session(Path(sys.argv[1]))
    print("forked" if held.forked_from else "held", flush=True)
    sys.stdin.read()  # keeps the lock until the test kills this process
    """
)


async def test_a_killed_process_leaves_no_lock_behind(tmp_path):
    engine, _writer = await open_session(tmp_path)
    finish_session(engine)
    path = _writer.path
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "held"
        assert claim_session(path).forked_from == engine.session_id
        holder.kill()  # SIGKILL: no clean-up runs in the holder
        holder.wait(timeout=30)
    finally:
        holder.kill()
        holder.stdin.close()
        holder.stdout.close()

    resumed = claim_session(path)
    assert resumed.forked_from is None and resumed.session_id == engine.session_id
    resumed.release()


async def test_resuming_the_session_already_open_here_says_so_and_forks_nothing(tmp_path):
    engine, writer = await open_session(tmp_path)

    with pytest.raises(SessionNotFound, match="is the conversation you are in"):
        resolve_resumed(tmp_path, resume_id=engine.session_id[:8], current_id=engine.session_id)
    assert [p.name for p in writer.path.parent.glob("*.jsonl")] == [writer.path.name]


def test_a_fork_leaves_out_the_turn_still_running_in_the_other_process(tmp_path):
    def record(role: str, content) -> str:
        return json.dumps({"type": role, "message": {"role": role, "content": content}}) + "\n"

    call = {"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {"file_path": "a"}}
    result = {"type": "tool_result", "tool_use_id": "toolu_1", "content": "x"}
    path = tmp_path / "0b7e4d1c-0000-4000-8000-000000000003.jsonl"
    header = {"type": "session", "version": 1, "sessionId": path.stem, "cwd": "/p", "model": "m"}
    path.write_text(
        json.dumps(header)
        + "\n"
        + record("user", "q1")
        + record("assistant", [text("a1")])
        + record("user", "q2")
        + record("assistant", [text("Reading."), call])
        + record("user", [result])
        + '{"type": "assistant", "mess'  # being written right now
    )
    other = claim_session(path)  # the other process's hold

    forked = claim_session(path)

    assert forked.forked_from == path.stem
    assert forked.messages == [
        {"role": "user", "content": "q1"},
        {"role": "assistant", "content": [text("a1")]},
    ]
    assert len(forked.notices) == 1  # the fork is said; nothing needed repairing
    other.release()
