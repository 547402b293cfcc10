"""The fake API holds web search blocks to the real API's rules, so a client that
drops, reorders or alters them fails here and not in production."""

from __future__ import annotations

import copy

import pytest

from tests.fakeapi import validate_request, web_search
from tests.fakeapi.scenario import parse_scenario
from tests.fakeapi.sse import search_blocks

TOOL = {"type": "web_search_20250305", "name": "web_search", "max_uses": 5}
CALL, RESULT = search_blocks(web_search("q", [("Title", "https://example.com/")]))


def body(assistant: list[dict], tools: list[dict] | None = None) -> dict:
    return {
        "model": "m",
        "max_tokens": 10,
        "tools": tools if tools is not None else [TOOL],
        "messages": [
            {"role": "user", "content": "search"},
            {"role": "assistant", "content": assistant},
            {"role": "user", "content": "more"},
        ],
    }


def test_search_blocks_replayed_as_served_are_accepted():
    assert validate_request(body([CALL, RESULT, {"type": "text", "text": "found"}])) is None


def altered(field: str, value: object) -> dict:
    result = copy.deepcopy(RESULT)
    result["content"][0][field] = value
    return result


@pytest.mark.parametrize(
    ("assistant", "problem"),
    [
        ([RESULT], "has no `server_tool_use` block before it"),
        ([RESULT, CALL], "has no `server_tool_use` block before it"),
        ([CALL, {"type": "text", "text": "x"}], "without `web_search_tool_result`"),
        ([CALL, altered("url", "https://evil.net/")], "Invalid encrypted content"),
        ([CALL, altered("encrypted_content", "bm9wZQ==")], "Invalid encrypted content"),
        ([{**CALL, "id": "toolu_1"}, {**RESULT, "tool_use_id": "toolu_1"}], "srvtoolu_"),
        ([{**CALL, "input": {}}, RESULT], "needs a `query` string"),
    ],
)
def test_altered_or_unpaired_search_blocks_are_refused(assistant, problem):
    found = validate_request(body(assistant))
    assert found is not None and problem in found


def test_search_blocks_belong_to_the_assistant():
    request = body([{"type": "text", "text": "ok"}])
    request["messages"][0]["content"] = [{"type": "text", "text": "hi"}, CALL]
    assert "only appear in assistant messages" in validate_request(request)


@pytest.mark.parametrize(
    ("tool", "problem"),
    [
        ({**TOOL, "name": "search"}, "Input should be 'web_search'"),
        ({**TOOL, "type": "web_search_1999"}, "does not match any of the expected tags"),
        ({**TOOL, "max_uses": 0}, "greater than 0"),
        ({**TOOL, "allowed_domains": ["a.com"], "blocked_domains": ["b.com"]}, "both"),
        ({**TOOL, "query": "x"}, "Extra inputs are not permitted"),
    ],
)
def test_a_malformed_search_tool_is_refused(tool, problem):
    found = validate_request(body([{"type": "text", "text": "ok"}], [tool]))
    assert found is not None and problem in found


def test_a_scenario_file_can_script_a_search():
    scenario = parse_scenario(
        [
            {
                "blocks": [
                    {"type": "web_search", "query": "q", "results": [{"title": "T", "url": "u"}]}
                ]
            }
        ]
    )
    (block,) = scenario.responses[0].blocks
    assert (block.query, block.results[0].url) == ("q", "u")
