"""MCP tool names as the API takes them: safe, at most 64 characters, unique, stable."""

from __future__ import annotations

import re

from agentcli.mcp.names import MAX_NAME, api_names, server_prefix

API_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


def test_a_plain_name_is_mcp_server_tool():
    assert api_names([("github", "create_issue")]) == {
        ("github", "create_issue"): "mcp__github__create_issue"
    }


def test_characters_the_api_refuses_become_underscores():
    names = api_names([("my.server", "list files/dirs")])

    assert names[("my.server", "list files/dirs")] == "mcp__my_server__list_files_dirs"
    assert server_prefix("my.server") == "mcp__my_server__"


def test_a_long_name_is_cut_to_64_with_a_stable_hash():
    pair = ("a-server-with-a-long-name", "a_tool_whose_name_goes_on_and_on_for_a_while")

    first, again = api_names([pair])[pair], api_names([pair, ("x", "y")])[pair]

    assert len(first) == MAX_NAME and API_NAME.match(first)
    assert first == again
    assert first.startswith("mcp__a-server-with-a-long-name__a_tool")


def test_names_that_clean_to_the_same_stay_unique_and_the_untouched_one_keeps_its_name():
    names = api_names([("s", "a.b"), ("s", "a_b"), ("s", "a b")])

    assert names[("s", "a_b")] == "mcp__s__a_b"
    assert len(set(names.values())) == 3
    assert all(API_NAME.match(name) for name in names.values())


def test_the_same_pairs_get_the_same_names_in_any_order():
    pairs = [("s", "a.b"), ("s", "a b"), ("t", "x" * 80)]

    assert api_names(pairs) == api_names(reversed(pairs))
