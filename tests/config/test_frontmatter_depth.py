"""Front matter nested thousands deep is refused by one rule, whatever the stack depth
of the caller (YAML's parser recurses, so its own failure depended on it: a flake)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from agentcli.config.frontmatter import FrontMatterError, split_front_matter


@pytest.mark.parametrize("limit", [1_000, 100_000])
def test_deep_flow_nesting_is_refused_as_nested_too_deeply(limit):
    text = "---\nname: x\ncolor: " + "[" * 5000 + "\n---\nbody\n"
    before = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, before))
    try:
        with pytest.raises(FrontMatterError, match="nested too deeply"):
            split_front_matter(text, Path("x.md"))
    finally:
        sys.setrecursionlimit(before)


def test_ordinary_flow_lists_still_load():
    meta, body = split_front_matter("---\ntools: [Read, [Grep]]\n---\nbody\n", Path("x.md"))
    assert meta == {"tools": ["Read", ["Grep"]]} and body == "body\n"
