"""BlockSplitter: cutting a stream into top-level blocks never changes the parse.

The property users rely on: rendering each finished block on its own shows the
same document as rendering the whole text at once, whatever the chunk sizes.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from agentcli.frontends.tui.widgets.markdown_blocks import BlockSplitter

_PARSER = MarkdownIt("gfm-like")

# Lines chosen to hit the tricky cases: loose and nested lists, fences inside
# list items, unclosed fences, HTML blocks, tables, setext underlines, tabs, CR.
_LINES = [
    "# Title\n",
    "## Sub heading\n",
    "Some paragraph with `code` and **bold**.\n",
    "another line\n",
    "\n",
    "\n\n",
    "- item one\n",
    "- item two\n",
    "  continued\n",
    "    indented four\n",
    "1. first\n",
    "2. second\n",
    "   1. nested\n",
    "10. ten\n",
    "```python\n",
    "```\n",
    "~~~\n",
    "````\n",
    "   ```js\n",
    "  ```bash\n",
    "  ```\n",
    "def f():\n",
    "    return 1\n",
    "| a | b |\n",
    "|---|---|\n",
    "| 1 | 2 |\n",
    "> quote\n",
    "> ```\n",
    "---\n",
    "===\n",
    "***\n",
    "<!-- comment\n",
    "-->\n",
    "<div>\n",
    "</div>\n",
    "<pre>\n",
    "</pre>\n",
    "\tTabbed\n",
    "\t- tab item\n",
    "* star\n",
    "+ plus\n",
    "text\r\n",
    "\r\n",
    "#nospace\n",
    "  - sub\n",
    "1) paren\n",
]


def _signature(source: str) -> list[tuple]:
    return [
        (t.type, t.tag, t.info, t.content, t.level, t.hidden, t.markup)
        for t in _PARSER.parse(source)
    ]


def _split(text: str, chunk: int) -> list[str]:
    splitter = BlockSplitter()
    blocks: list[str] = []
    for start in range(0, len(text), chunk):
        splitter.feed(text[start : start + chunk])
        blocks += splitter.take_finished()
    splitter.close()
    blocks += splitter.take_finished()
    return blocks


def _parsed_in_pieces(blocks: list[str]) -> list[tuple]:
    return [token for block in blocks for token in _signature(block)]


@settings(max_examples=400, deadline=None)
@given(
    lines=st.lists(st.sampled_from(_LINES), min_size=1, max_size=16),
    chunk=st.sampled_from([1, 2, 3, 7, 20, 10_000]),
)
def test_blocks_parse_like_the_whole_text(lines: list[str], chunk: int) -> None:
    text = "".join(lines)
    blocks = _split(text, chunk)
    assert "".join(blocks) == text.replace("\r\n", "\n").replace("\r", "\n")
    assert _parsed_in_pieces(blocks) == _signature(text)


def test_cuts_between_plain_blocks() -> None:
    text = "# Title\nIntro para.\n\n- a\n- b\n\n```py\nx = 1\n```\nAfter.\n"
    assert _split(text, 1) == [
        "# Title\n",
        "Intro para.\n\n",
        "- a\n- b\n\n",
        "```py\nx = 1\n```\n",
        "After.\n",
    ]


def test_loose_list_and_blank_lines_in_fences_stay_together() -> None:
    text = "- a\n\n- b\n\n  more b\n\n```\ncode\n\n\nstill code\n```\n"
    assert _split(text, 4) == ["- a\n\n- b\n\n  more b\n\n", "```\ncode\n\n\nstill code\n```\n"]


def test_tail_is_the_open_block_and_the_partial_line() -> None:
    splitter = BlockSplitter()
    splitter.feed("First.\n\nSecond li")
    assert splitter.take_finished() == []  # "First." ends only when a new block starts
    assert splitter.tail == "First.\n\nSecond li"
    splitter.feed("ne\n\n| a |\n|---|\n| 1")
    assert splitter.take_finished() == ["First.\n\n", "Second line\n\n"]
    assert splitter.tail == "| a |\n|---|\n| 1"


def test_crlf_split_across_chunks_is_one_line_break() -> None:
    splitter = BlockSplitter()
    for piece in ["a\r", "\n\r", "\nb\r", "\n"]:
        splitter.feed(piece)
    splitter.close()
    assert splitter.take_finished() == ["a\n\n", "b\n"]


def test_feed_after_close_is_refused() -> None:
    splitter = BlockSplitter()
    splitter.close()
    try:
        splitter.feed("x")
    except RuntimeError:
        return
    raise AssertionError("feed() after close() must raise")
