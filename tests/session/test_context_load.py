"""`-p --continue` loads only what the next request needs: the records after the last
compaction. The transcript is written by a real engine that compacted several times;
the context read that way must be the one a full load gives, and the lines before the
boundary are not parsed at all (a broken one there goes unreported, unread)."""

from __future__ import annotations

from agentcli.core.usage import Usage
from agentcli.engine.compaction import Compactor
from agentcli.session.loader import load_session
from tests.engine.harness import make_engine, run_turn
from tests.engine.scripted import Response, ScriptedProvider, text

LONG = "details " * 150


async def compacted_session(tmp_path):
    responses = []
    for n in range(8):
        responses.append(Response([text(f"A{n}")], usage=Usage(1200, 20)))  # over the threshold
        responses.append(Response([text(f"SUMMARY {n}")], usage=Usage(900, 300)))
    provider = ScriptedProvider(*responses)
    compactor = Compactor(window=2000, threshold=0.5, keep_tokens=400)
    engine = make_engine(provider, [], tmp_path, session=True, compactor=compactor)
    for n in range(5):
        await run_turn(engine, f"P{n} {LONG}")
    engine.transcript.close()
    assert engine.compactor.compactions >= 2
    return engine.transcript.path


async def test_the_context_alone_is_the_context_of_a_full_load(tmp_path):
    path = await compacted_session(tmp_path)
    full = load_session(path)
    context = load_session(path, context_only=True)
    assert context.messages == full.messages
    assert context.prompts.keys() == full.prompts.keys()
    assert context.last_usage == full.last_usage
    assert context.last_uuid == full.last_uuid
    assert context.meta == full.meta and context.session_id == full.session_id
    assert context.notices == full.notices == []


async def test_lines_before_the_last_compaction_are_not_read(tmp_path):
    path = await compacted_session(tmp_path)
    lines = path.read_text().splitlines(keepends=True)
    lines[2] = "{not json\n"  # a prompt long compacted away
    path.write_text("".join(lines))
    full = load_session(path)
    assert any("skipped unreadable line(s) 3" in n for n in full.notices)
    context = load_session(path, context_only=True)
    assert context.notices == [] and context.dropped_lines == []
    assert context.messages == full.messages


async def test_a_broken_line_after_the_last_compaction_is_reported_with_its_number(tmp_path):
    path = await compacted_session(tmp_path)
    lines = path.read_text().splitlines(keepends=True)
    lines.insert(len(lines) - 1, "{not json\n")
    path.write_text("".join(lines))
    context = load_session(path, context_only=True)
    assert context.dropped_lines == load_session(path).dropped_lines == [len(lines) - 1]
