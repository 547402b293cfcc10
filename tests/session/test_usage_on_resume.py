"""What a resumed session knows of its usage: the context of its last request (after
the last compaction) and what the whole conversation cost so far."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentcli.core.pricing import cost_usd
from agentcli.core.usage import Usage
from agentcli.engine.compaction import Compactor
from agentcli.session.loader import load_session
from tests.engine.harness import make_engine, run_turn
from tests.engine.scripted import Response, ScriptedProvider, text

HEADER = {"type": "session", "version": 1, "sessionId": "s1", "cwd": "/p", "model": "claude-x"}
FIRST = Usage(input_tokens=1_000, output_tokens=100, cache_read_input_tokens=5_000)
SECOND = Usage(input_tokens=2_000, output_tokens=200, cache_creation_input_tokens=3_000)
SUMMARY = Usage(input_tokens=9_000, output_tokens=700)


def message(role: str, words: str, **meta) -> dict:
    content = [{"type": "text", "text": words}]
    return {"type": role, "version": 1, "message": {"role": role, "content": content}, "meta": meta}


def answer(words: str, usage: Usage, model: str = "claude-opus-4-1") -> dict:
    return message("assistant", words, usage=usage.to_dict(), model=model)


def write(tmp_path: Path, *records: dict) -> Path:
    path = tmp_path / "0b7e4d1c-0000-4000-8000-000000000002.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in [HEADER, *records]))
    return path


def test_the_last_request_gives_the_context_and_every_request_adds_to_the_cost(tmp_path):
    path = write(
        tmp_path,
        message("user", "one"),
        answer("a", FIRST, model="claude-haiku-4"),
        message("user", "two"),
        answer("b", SECOND),
    )

    loaded = load_session(path)

    assert loaded.last_usage == SECOND
    assert loaded.totals.usage == FIRST + SECOND
    expected = cost_usd("claude-haiku-4", FIRST) + cost_usd("claude-opus-4-1", SECOND)
    assert loaded.totals.cost_usd == pytest.approx(expected)
    assert loaded.totals.turns == 2


def test_after_a_compaction_only_later_requests_give_the_context(tmp_path):
    boundary = {"type": "compact_boundary", "version": 1, "trigger": "manual", "kept": 1}
    summary = message("user", "summary", compactSummary=True, usage=SUMMARY.to_dict())
    records = [
        message("user", "one"),
        answer("a", FIRST),
        boundary,
        summary,
        message("assistant", "a", kept=True),
    ]

    compacted = load_session(write(tmp_path, *records))
    assert compacted.last_usage == Usage()  # no request since the boundary yet
    assert compacted.totals.usage == FIRST + SUMMARY  # the summary call was paid for too
    assert compacted.totals.turns == 1

    later = load_session(write(tmp_path, *records, message("user", "two"), answer("b", SECOND)))
    assert later.last_usage == SECOND


async def test_a_resumed_session_costs_what_the_live_one_did_compaction_included(tmp_path):
    long = "details " * 150
    provider = ScriptedProvider(
        Response([text("A1")], usage=Usage(400, 20)),
        Response([text("A2")], usage=Usage(800, 20)),
        Response([text("SUMMARY")], usage=Usage(900, 300)),
        Response([text("A3")], usage=Usage(500, 20)),
    )
    compactor = Compactor(window=2000, threshold=0.5, keep_tokens=400)
    engine = make_engine(provider, [], tmp_path, session=True, compactor=compactor)
    writer = engine.transcript
    for prompt in ("P1 " + long, "P2 " + long, "P3 " + long):
        await run_turn(engine, prompt)
    writer.close()
    assert engine.compactor.compactions == 1

    loaded = load_session(writer.path)

    assert loaded.totals.usage == engine.usage
    assert loaded.totals.cost_usd == pytest.approx(engine.cost_usd)
    assert loaded.totals.turns == engine.turns
    assert loaded.last_usage == engine.last_request_usage == Usage(500, 20)


def test_a_rewind_takes_the_context_back_to_the_last_answer_left(tmp_path):
    prompts = [
        message("user", "one", promptId="p1"),
        answer("a", FIRST),
        message("user", "two", promptId="p2"),
        answer("b", SECOND),
    ]
    rewind = {"type": "rewind", "version": 1, "promptId": "p2"}

    loaded = load_session(write(tmp_path, *prompts, rewind))

    assert loaded.last_usage == FIRST
    assert loaded.totals.usage == FIRST + SECOND  # what was spent stays spent
    back_to_start = {**rewind, "promptId": "p1"}
    assert load_session(write(tmp_path, *prompts, back_to_start)).last_usage == Usage()
