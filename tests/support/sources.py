"""agentcli's own source, parsed once per test process.

The architecture tests (tests/test_layers.py, tests/engine/test_composition.py,
tests/frontends/tui/test_textual_private_boundary.py) each walk the syntax of
every module; parsing ~270 files takes about a second, so they share one parse
instead of paying it each, and one walk: `nodes_of` lists a tree's nodes once
for every test that looks at all of them. A tree is read only: no test may
change one.

Parsing makes millions of objects that all live on, so it runs with the cyclic
garbage collector paused (`parse`): otherwise each full collection it sets off
rescans every tree parsed before, and the parse took three times as long.
"""

from __future__ import annotations

import ast
import gc
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path

import agentcli

PACKAGE = Path(agentcli.__file__).parent
ROOT = PACKAGE.parent  # the repository


@contextmanager
def _collection_paused() -> Iterator[None]:
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def parse(source: str, filename: str = "<unknown>") -> ast.Module:
    """`ast.parse`, with no cyclic collection meanwhile (syntax trees hold no cycles)."""
    with _collection_paused():
        return ast.parse(source, filename)


@cache
def tree_of(path: Path) -> ast.Module:
    """The syntax tree of the Python file at `path` (parsed on the first call only)."""
    return parse(path.read_text(encoding="utf-8"), str(path))


@cache
def nodes_of(path: Path) -> tuple[ast.AST, ...]:
    """Every node of `tree_of(path)`, in `ast.walk` order (walked on the first call only)."""
    with _collection_paused():
        return tuple(ast.walk(tree_of(path)))


@cache
def python_files(folder: Path) -> tuple[Path, ...]:
    """Every `.py` file under `folder`, sorted."""
    return tuple(sorted(folder.rglob("*.py")))
