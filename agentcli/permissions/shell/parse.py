"""Parse a command line with a real bash grammar into a small tree of our own.

Why a parser: the permission check must see every command a line runs, and
"what bash runs" is a question of grammar (quotes, substitutions, here-docs,
compound commands), which pattern matching on the text keeps getting wrong.

Why tree-sitter-bash: a maintained bash grammar with prebuilt wheels for the
platforms we support (tree_sitter 0.25-0.26, tree_sitter_bash 0.25), no
subprocess and no C toolchain at install time; a parse takes tens of
microseconds. Both are pinned to tight ranges in pyproject.toml because a
grammar release can rename node types, which the allow-list in constructs.py
depends on (an unknown name is refused, so a change fails closed).

The parser is imported on first use only: the permission check runs after the
TUI's first frame, and the import must not slow that frame down.

`Node` keeps what the analysis needs: type, text, field name and children, so
nothing else in the package depends on tree-sitter's API.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any


@dataclass(frozen=True, slots=True)
class Node:
    type: str
    text: str
    named: bool
    field: str | None
    children: tuple[Node, ...]
    missing: bool = False

    def named_children(self) -> list[Node]:
        return [child for child in self.children if child.named]

    def child(self, field: str) -> Node | None:
        return next((c for c in self.children if c.field == field), None)

    def fields(self, field: str) -> list[Node]:
        return [c for c in self.children if c.field == field]


@dataclass(frozen=True, slots=True)
class Tree:
    root: Node
    has_error: bool
    gaps: str  # source text not covered by any token other than blanks: a grammar mismatch
    joined: bool  # a `\<newline>` between two tokens with no blank: bash makes them one word


@cache
def _parser() -> Any:
    import tree_sitter
    import tree_sitter_bash

    return tree_sitter.Parser(tree_sitter.Language(tree_sitter_bash.language()))


def parse(source: str) -> Tree:
    """The syntax tree of `source` (a whole command line, possibly several lines)."""
    data = source.encode("utf-8", "surrogateescape")
    ts_tree = _parser().parse(data)
    leaves: list[tuple[int, int]] = []
    root = _convert(ts_tree.root_node, None, leaves)
    gaps, joined = _gaps(data, leaves)
    return Tree(root, ts_tree.root_node.has_error, gaps, joined)


def _convert(ts_node: Any, field: str | None, leaves: list[tuple[int, int]]) -> Node:
    children = []
    for index, child in enumerate(ts_node.children):
        children.append(_convert(child, ts_node.field_name_for_child(index), leaves))
    if not children:
        leaves.append((ts_node.start_byte, ts_node.end_byte))
    text = ts_node.text.decode("utf-8", "surrogateescape") if ts_node.text is not None else ""
    return Node(ts_node.type, text, ts_node.is_named, field, tuple(children), ts_node.is_missing)


def _gaps(data: bytes, leaves: list[tuple[int, int]]) -> tuple[str, bool]:
    """Bytes between tokens that are not blanks or line continuations; and joins.

    tree-sitter skips what it cannot place in some recoveries; bash would
    not. Anything left over here means the tree is not the line bash sees.
    tree-sitter also takes `\\<newline>` as a blank, where bash removes it
    and joins what is on either side (`r\\<newline>m` is `rm`).
    """
    leftover: list[bytes] = []
    joined = False
    position = 0
    for start, end in sorted(leaves):
        if start > position:
            gap = data[position:start]
            leftover.append(gap)
            if b"\\\n" in gap and gap.replace(b"\\\r\n", b"").replace(b"\\\n", b"") == b"":
                joined = joined or position > 0
        position = max(position, end)
    leftover.append(data[position:])
    text = b"".join(leftover).replace(b"\\\r\n", b"").replace(b"\\\n", b"")
    return text.translate(None, b" \t\n").decode("utf-8", "replace"), joined
