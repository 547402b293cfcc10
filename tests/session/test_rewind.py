"""Checkpoints and rewind through the whole engine, against the fake Messages API.

Three prompts edit and create files (rewind_support.py); a rewind to the
second puts the code back byte for byte, the conversation back to just before
that prompt, or both, and the next request is one the API accepts.
"""

from __future__ import annotations

import os
import stat

import pytest

from agentcli.core.messages import text_of
from agentcli.session import checkpoint_blobs
from agentcli.session.checkpoints import SessionCheckpoints, UnknownPrompt
from agentcli.session.claim import claim_session
from agentcli.session.loader import load_session
from agentcli.session.resume import resolve_resumed
from agentcli.session.rewind import apply_rewind, plan_rewind, rewind_files
from agentcli.wiring.composition import finish_session
from tests.fakeapi import reply, text
from tests.session.rewind_support import make_session_engine, run_three_prompts, send


def assert_all_requests_valid(server) -> None:
    rejected = [(r.status, r.error) for r in server.requests if r.status == 400]
    assert rejected == [], f"the server rejected requests: {rejected}"


def prompts_of(messages) -> list[str]:
    """The texts of the person's prompts among API-shaped messages."""
    return [text_of(m) for m in messages if m["role"] == "user" and not _results(m)]


def _results(message) -> bool:
    content = message["content"]
    return isinstance(content, list) and any(b["type"] == "tool_result" for b in content)


def checkpoints_of(engine) -> SessionCheckpoints:
    assert isinstance(engine.checkpoints, SessionCheckpoints)
    return engine.checkpoints


async def test_code_only_puts_every_file_back_and_keeps_the_conversation(fake_api, tmp_path):
    session = await run_three_prompts(fake_api, tmp_path)
    engine = session.engine
    messages = list(engine.messages)

    report = rewind_files(checkpoints_of(engine), session.prompt_ids[1])

    assert session.files() == session.before_second
    assert stat.S_IMODE((tmp_path / "data.bin").stat().st_mode) == 0o755
    assert sorted(p.name for p in report.restored) == ["a.py", "data.bin"]
    assert sorted(p.name for p in report.deleted) == ["c.py", "new.py"]
    assert report.conflicts == [] and report.not_restored == []
    assert engine.messages == messages
    fake_api.enqueue(reply(text("ok")))
    await send(engine, "go on")
    sent = fake_api.requests[-1].body["messages"]
    assert [text_of(m) for m in sent[: len(messages)]] == [text_of(m) for m in messages]
    assert_all_requests_valid(fake_api)


async def test_conversation_only_truncates_and_leaves_the_files(fake_api, tmp_path):
    session = await run_three_prompts(fake_api, tmp_path)
    engine = session.engine
    after_three = session.files()

    prompt = engine.rewind_conversation(session.prompt_ids[1])

    assert text_of(prompt) == "value 3 and a new file\nsecond line"
    assert len(engine.messages) == session.messages_before_second
    assert engine.prompt_ids() == session.prompt_ids[:1]
    assert session.files() == after_three
    fake_api.enqueue(reply(text("ok")))
    await send(engine, "something else")
    sent = fake_api.requests[-1].body["messages"]
    assert prompts_of(sent) == ["set value to 2", "something else"]
    assert_all_requests_valid(fake_api)


async def test_both_and_the_transcript_keeps_the_branch(fake_api, tmp_path):
    session = await run_three_prompts(fake_api, tmp_path)
    engine = session.engine
    transcript = engine.transcript
    assert transcript is not None

    rewind_files(checkpoints_of(engine), session.prompt_ids[1])
    engine.rewind_conversation(session.prompt_ids[1])
    finish_session(engine)

    assert session.files() == session.before_second
    loaded = load_session(transcript.path)
    assert loaded.messages == engine.messages
    assert prompts_of(loaded.history) == ["set value to 2"]
    assert len(loaded.history) == session.messages_before_second
    raw = transcript.path.read_text()
    assert "value 4 and pkg/c.py" in raw  # the abandoned branch is still in the file
    assert loaded.notices == []


async def test_a_file_the_person_changed_is_reported_not_overwritten(fake_api, tmp_path):
    session = await run_three_prompts(fake_api, tmp_path)
    checkpoints = checkpoints_of(session.engine)
    (tmp_path / "a.py").write_text("value = 'mine'\n")
    after_three = session.files()

    plan = plan_rewind(checkpoints, session.prompt_ids[1])
    refused = apply_rewind(checkpoints, plan, on_conflict="refuse")

    assert plan.conflicts == [tmp_path / "a.py"]
    assert refused.conflicts == [tmp_path / "a.py"] and not refused.changed
    assert session.files() == after_three

    kept = apply_rewind(checkpoints, plan, on_conflict="keep")

    assert kept.conflicts == [tmp_path / "a.py"]
    line = (
        "kept a.py as it is: it changed since the agent's last edit (by a shell command or by you)"
    )
    assert line in kept.lines(lambda p: p.name)
    assert (tmp_path / "a.py").read_text() == "value = 'mine'\n"
    assert not (tmp_path / "new.py").exists()
    assert (tmp_path / "data.bin").read_bytes() == session.before_second["data.bin"]


async def test_overwriting_a_conflict_when_the_person_says_so(fake_api, tmp_path):
    session = await run_three_prompts(fake_api, tmp_path)
    (tmp_path / "a.py").write_text("value = 'mine'\n")

    report = rewind_files(
        checkpoints_of(session.engine), session.prompt_ids[1], on_conflict="overwrite"
    )

    assert session.files() == session.before_second
    assert tmp_path / "a.py" in report.restored


async def test_a_dry_run_says_what_would_change_and_changes_nothing(fake_api, tmp_path):
    session = await run_three_prompts(fake_api, tmp_path)
    after_three = session.files()

    report = rewind_files(checkpoints_of(session.engine), session.prompt_ids[1], dry_run=True)

    assert session.files() == after_three
    assert sorted(p.name for p in report.restored) == ["a.py", "data.bin"]
    assert sorted(p.name for p in report.deleted) == ["c.py", "new.py"]
    assert report.to_json()["dryRun"] is True
    assert rewind_files(checkpoints_of(session.engine), session.prompt_ids[1]).changed


async def test_rewind_after_a_restart(fake_api, tmp_path):
    session = await run_three_prompts(fake_api, tmp_path)
    session_id = session.engine.session_id
    finish_session(session.engine)

    resumed = resolve_resumed(tmp_path, resume_id=session_id)
    assert resumed is not None
    engine = make_session_engine(fake_api, tmp_path, resumed)

    assert engine.prompt_ids() == session.prompt_ids
    assert [p.id for p in checkpoints_of(engine).prompts()] == session.prompt_ids
    rewind_files(checkpoints_of(engine), session.prompt_ids[1])
    engine.rewind_conversation(session.prompt_ids[1])
    assert session.files() == session.before_second
    assert len(engine.messages) == session.messages_before_second
    fake_api.enqueue(reply(text("ok")))
    again_id = await send(engine, "again")
    assert_all_requests_valid(fake_api)
    finish_session(engine)

    again = resolve_resumed(tmp_path, resume_id=session_id)
    assert again is not None
    assert prompts_of(again.messages) == ["set value to 2", "again"]
    assert prompts_of(again.history) == ["set value to 2", "again"]
    restarted = make_session_engine(fake_api, tmp_path, again)
    assert restarted.prompt_ids() == [session.prompt_ids[0], again_id]
    assert [p.id for p in checkpoints_of(restarted).prompts()] == [session.prompt_ids[0], again_id]
    finish_session(restarted)


async def test_a_fork_can_rewind_to_the_prompts_it_inherited(fake_api, tmp_path):
    session = await run_three_prompts(fake_api, tmp_path)
    transcript = session.engine.transcript
    assert transcript is not None

    fork = claim_session(transcript.path)  # the session is open here: forked
    engine = make_session_engine(fake_api, tmp_path, fork)

    assert fork.forked_from == session.engine.session_id
    assert engine.prompt_ids() == session.prompt_ids
    rewind_files(checkpoints_of(engine), session.prompt_ids[1])
    assert session.files() == session.before_second
    finish_session(engine)
    finish_session(session.engine)


async def test_checkpoint_files_are_private(fake_api, tmp_path):
    session = await run_three_prompts(fake_api, tmp_path)
    checkpoints = checkpoints_of(session.engine)

    files = [checkpoints.path, *checkpoints.blobs.folder.rglob("*")]
    assert any(p.parent.parent == checkpoints.blobs.folder for p in files)
    for path in files:
        mode = stat.S_IMODE(path.stat().st_mode)
        assert mode == (0o700 if path.is_dir() else 0o600), path
    assert stat.S_IMODE(checkpoints.root.stat().st_mode) == 0o700


async def test_only_the_files_the_agent_wrote_are_recorded(fake_api, tmp_path):
    (tmp_path / "untouched.py").write_text("x = 1\n")
    session = await run_three_prompts(fake_api, tmp_path)
    log = checkpoints_of(session.engine).path.read_text()

    assert "untouched.py" not in log
    recorded = {line for line in log.splitlines() if '"type":"before"' in line}
    assert len(recorded) == 6  # a.py x3, data.bin, new.py, pkg/c.py: once per prompt


def test_an_unknown_prompt_is_refused_and_changes_nothing(tmp_path):
    checkpoints = SessionCheckpoints(tmp_path / "cp", "s")
    with pytest.raises(UnknownPrompt):
        rewind_files(checkpoints, "no-such-prompt")
    assert not (tmp_path / "cp").exists()


def test_a_big_file_is_recorded_by_hash_and_not_restored(tmp_path, monkeypatch):
    monkeypatch.setattr(checkpoint_blobs, "MAX_STORED_BYTES", 10)
    big = tmp_path / "big.dat"
    big.write_bytes(b"0123456789abcdef")
    checkpoints = SessionCheckpoints(tmp_path / "cp", "s", project=tmp_path)
    checkpoints.begin_prompt("p1", "change big")
    checkpoints.before_write([big])
    big.write_bytes(b"changed by the agent")
    checkpoints.after_write([big])

    report = rewind_files(checkpoints, "p1")

    assert big.read_bytes() == b"changed by the agent"
    assert report.not_restored == [(big, "it is over 10 MB, so only its hash was recorded")]
    assert not list((tmp_path / "cp").rglob("blobs/*/*"))
    big.write_bytes(b"0123456789abcdef")  # back as it was: nothing left to restore
    assert plan_rewind(checkpoints, "p1").paths == []


def test_a_cut_last_line_of_the_log_is_skipped(tmp_path):
    checkpoints = SessionCheckpoints(tmp_path, "s")
    checkpoints.begin_prompt("p1", "one")
    checkpoints.close()
    with checkpoints.path.open("a") as handle:
        handle.write('{"type":"prompt","id":"p2"')
    again = SessionCheckpoints(tmp_path, "s")
    again.begin_prompt("p3", "three")

    assert [p.id for p in SessionCheckpoints(tmp_path, "s").prompts()] == ["p1", "p3"]
    assert os.stat(again.path).st_mode & 0o777 == 0o600
