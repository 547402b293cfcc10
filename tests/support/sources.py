"""agentcli's own source, parsed once per test process.

The architecture tests (tests/test_layers.py, tests/engine/test_composition.py,
tests/frontends/tui/test_textual_private_boundary.py) each walk the syntax of
every module; parsing ~270 files takes about a second, so they share one parse
instead of paying it each. A tree is read only: no test may change one.
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

import agentcli

PACKAGE = Path(agentcli.__file__).parent
ROOT = PACKAGE.parent  # the repository


@cache
def tree_of(path: Path) -> ast.Module:
    """The syntax tree of the Python file at `path` (parsed on the first call only)."""
    return ast.parse(path.read_text(encoding="utf-8"), str(path))


@cache
def python_files(folder: Path) -> tuple[Path, ...]:
    """Every `.py` file under `folder`, sorted."""
    return tuple(sorted(folder.rglob("*.py")))
