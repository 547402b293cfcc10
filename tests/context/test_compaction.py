"""Auto-compaction with a scripted model: once past the threshold, summary + recent turns."""

from __future__ import annotations

import json

import pytest

from agentcli.core.usage import Usage
from agentcli.engine.carry_over import CUT_NOTE
from agentcli.engine.compaction import SUMMARY_REQUEST, Compactor, choose_split
from agentcli.engine.events import Notice
from agentcli.engine.windows import context_usage
from agentcli.providers.base import ModelError
from agentcli.session.loader import load_session
from tests.engine.harness import make_engine, of_type, run_turn
from tests.engine.scripted import Response, ScriptedProvider, text, tool_use

LONG = "details " * 150  # about 300 tokens by the 4-characters estimate


def answer(words: str, input_tokens: int) -> Response:
    return Response([text(words)], usage=Usage(input_tokens, 20))


def setup(tmp_path, *script):
    provider = ScriptedProvider(*script)
    compactor = Compactor(window=2000, threshold=0.5, keep_tokens=400)
    engine = make_engine(provider, [], tmp_path, session=True, compactor=compactor)
    writer = engine.transcript
    return provider, engine, compactor, writer


async def test_passing_the_threshold_compacts_once_and_keeps_recent_turns(tmp_path):
    provider, engine, compactor, writer = setup(
        tmp_path,
        answer("A1", 400),
        answer("A2", 800),
        Response([text("SUMMARY OF EARLIER WORK")]),
        answer("A3", 500),
        answer("A4", 560),
    )
    await run_turn(engine, "P1 " + LONG)
    await run_turn(engine, "P2 " + LONG)
    events = await run_turn(engine, "P3 " + LONG)
    await run_turn(engine, "P4 short")

    assert compactor.compactions == 1
    assert any("Compacted" in n.text for n in of_type(events, Notice))
    summary_request = provider.requests[2]
    assert SUMMARY_REQUEST in summary_request.messages[-1]["content"][-1]["text"]
    after = provider.requests[3].messages
    sent = json.dumps(after)
    assert "SUMMARY OF EARLIER WORK" in sent and "P3" in sent and "A2" in sent
    # The first prompt is carried verbatim, cut to the prompt budget (5% of the
    # window: 100 tokens); no room is left for P2, which only the summary covers.
    assert "P1 details details" in sent and CUT_NOTE in sent
    assert "P2" not in sent
    assert provider.invalid == []  # every request, the summary's included, was valid

    loaded = load_session(writer.path)
    assert loaded.compactions == 1 and loaded.notices == []
    assert json.dumps(loaded.messages) == json.dumps(engine.messages)
    history = json.dumps(loaded.history)  # the full history stays in the file
    assert "P1" in history and "P2" in history and history.count("P3 ") == 1


async def test_a_failing_summary_leaves_the_session_as_it_was(tmp_path):
    provider, engine, compactor, _ = setup(
        tmp_path,
        answer("A1", 400),
        answer("A2", 800),
        ModelError("API Error 500: summary broke", status=500),
        answer("A3", 900),
    )
    await run_turn(engine, "P1 " + LONG)
    await run_turn(engine, "P2 " + LONG)
    before = json.dumps(engine.messages)
    events = await run_turn(engine, "P3 " + LONG)

    assert compactor.compactions == 0
    assert any("Compaction failed" in n.text for n in of_type(events, Notice))
    assert json.dumps(engine.messages).startswith(before[:-1])
    assert "P1" in json.dumps(provider.requests[3].messages)
    assert provider.invalid == []


async def test_manual_compact_with_a_focus(tmp_path):
    provider, engine, compactor, _ = setup(
        tmp_path, answer("A1", 100), answer("A2", 100), Response([text("S")])
    )
    compactor.auto = False
    await run_turn(engine, "P1")
    await run_turn(engine, "P2")
    outcome = await engine.compact("the database schema")
    assert outcome.ok, outcome.message
    assert "the database schema" in json.dumps(provider.requests[2].messages)
    assert engine.messages[0]["content"][0]["text"].count("<summary>") == 1


async def test_after_a_compaction_the_size_shown_is_the_compacted_conversations(tmp_path):
    """The status bar and /status show `last_request_usage`: after /compact it is the
    estimate of what is left, not the last count of the longer conversation; and a
    rewind to a kept prompt afterwards does not bring back a pre-compaction count."""
    _, engine, compactor, _ = setup(
        tmp_path,
        answer("A1", 900),
        answer("A2", 1500),
        answer("A3", 1700),
        Response([text("S")]),
    )
    compactor.auto = False
    for prompt in ("P1 " + LONG, "P2 " + LONG, "P3 short"):
        await run_turn(engine, prompt)
    assert engine.last_request_usage.input_tokens == 1700

    outcome = await engine.compact()

    assert outcome.ok, outcome.message
    estimate = context_usage(engine).total
    assert engine.last_request_usage == Usage(input_tokens=estimate)
    assert estimate < 1700
    kept_prompt = engine.prompt_ids()[-1]  # P3, kept by the compaction
    engine.rewind_conversation(kept_prompt)
    assert engine.last_request_usage == Usage(input_tokens=context_usage(engine).total)


def test_the_kept_part_never_starts_with_orphaned_tool_results():
    call = tool_use("Read", {"file_path": "x"}, id="toolu_1")
    messages = [
        {"role": "user", "content": [text("P1 " + LONG)]},
        {"role": "assistant", "content": [call]},
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": LONG}],
        },
        {"role": "assistant", "content": [text("done")]},
    ]
    for keep in (1, 50, 320, 400, 10_000):
        split = choose_split(messages, keep)
        assert (
            split == 0
            or messages[split]["role"] == "assistant"
            or not any(b.get("type") == "tool_result" for b in messages[split]["content"])
        )
    assert choose_split(messages, 50) == 3


@pytest.mark.parametrize("threshold", [0.25, 0.5, 0.85])
async def test_a_compaction_leaves_room_before_the_next_whatever_the_threshold(tmp_path, threshold):
    """What a compaction keeps (recent turns, the person's prompts) is a share of the
    threshold, not of the window: with AGENTCLI_AUTOCOMPACT_PCT=25 a compaction that kept
    15% + 5% of the window would leave the conversation near the threshold, and the
    next request would compact again, a summary call for every request."""
    turns = 12
    script = [answer(f"A{n} " + LONG, 100) for n in range(turns)]
    provider = ScriptedProvider(*script, Response([text("SUMMARY")]))
    compactor = Compactor(window=20_000, threshold=threshold, auto=False)
    engine = make_engine(provider, [], tmp_path, compactor=compactor)
    for n in range(turns):
        await run_turn(engine, f"P{n} " + LONG)

    outcome = await engine.compact()

    assert outcome.ok, outcome.message
    assert outcome.post_tokens <= compactor.limit(engine) / 2
    assert "P0 details" in json.dumps(engine.messages)  # the first prompt still carried
