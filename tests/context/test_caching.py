"""Cache breakpoints over a multi-turn session, through the real SDK and fake API."""

from __future__ import annotations

import copy
import itertools
import json

from agentcli.engine.caching import add_cache_breakpoints
from bench.caching_bench import PROMPTS, _write_project, run_session
from tests.fakeapi import reply, text, tool_use


def count_breakpoints(request_body: dict) -> int:
    """How many blocks of a request carry `cache_control` (tools, system, messages)."""
    total = sum(1 for t in request_body.get("tools") or [] if t.get("cache_control"))
    system = request_body.get("system")
    if isinstance(system, list):
        total += sum(1 for b in system if b.get("cache_control"))
    for message in request_body.get("messages") or []:
        content = message.get("content")
        if isinstance(content, list):
            total += sum(1 for b in content if isinstance(b, dict) and b.get("cache_control"))
    return total


def strip_cache_control(value):
    if isinstance(value, dict):
        return {k: strip_cache_control(v) for k, v in value.items() if k != "cache_control"}
    if isinstance(value, list):
        return [strip_cache_control(v) for v in value]
    return value


async def test_breakpoints_and_a_byte_stable_prefix_over_a_session(fake_api, tmp_path):
    root = tmp_path / "project"
    root.mkdir()
    _write_project(root)
    for i in range(PROMPTS):
        fake_api.enqueue(
            reply(text("Reading."), tool_use("Read", {"file_path": f"module_{i}.py"})),
            reply(text(f"Answer {i}.")),
        )
    usages = await run_session(root, fake_api.base_url)

    bodies = [r.body for r in fake_api.requests]
    assert len(bodies) == 2 * PROMPTS and all(r.status == 200 for r in fake_api.requests)
    for previous, current in itertools.pairwise(bodies):
        assert 1 <= count_breakpoints(current) <= 4
        # tools and system identical byte for byte, breakpoints included
        assert json.dumps(current["tools"]) == json.dumps(previous["tools"])
        assert json.dumps(current["system"]) == json.dumps(previous["system"])
        assert current["system"][-1]["cache_control"] == {"type": "ephemeral"}
        # the earlier conversation is a prefix of the later one (breakpoints aside)
        before = strip_cache_control(previous["messages"])
        after = strip_cache_control(current["messages"])
        assert json.dumps(after[: len(before) - 1]) == json.dumps(before[:-1])
        assert current["messages"][-1]["content"][-1]["cache_control"] == {"type": "ephemeral"}
    # every request after the first reads the previous one's prefix from the cache
    assert all(u["cache_read_input_tokens"] > 0 for u in usages[1:])
    read = sum(u["cache_read_input_tokens"] for u in usages)
    total = sum(
        u["input_tokens"] + u["cache_creation_input_tokens"] + u["cache_read_input_tokens"]
        for u in usages
    )
    assert read / total >= 0.85


def test_breakpoints_go_on_copies_not_on_the_conversation():
    messages = [
        {"role": "user", "content": [{"type": "text", "text": "a"}]},
        {"role": "assistant", "content": [{"type": "text", "text": "b"}]},
        {"role": "user", "content": "c"},
    ]
    original = copy.deepcopy(messages)
    shaped = add_cache_breakpoints(messages)
    assert messages == original
    assert shaped[0]["content"][-1]["cache_control"] == {"type": "ephemeral"}
    assert shaped[2]["content"][-1]["cache_control"] == {"type": "ephemeral"}
    assert "cache_control" not in json.dumps(shaped[1])
