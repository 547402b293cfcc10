"""The search filter's rg exclusions: never more than the filter hides, exact where given.

rg's globs are a speed-up (rg does not even open what they exclude); the
filter's own judgement of each reported path is the final word. So an
exclusion may cover less than the rule (the filter catches the rest) but never
more (that would hide a readable file from a search). Checked with the real rg
over a real tree, from the project root and from a folder below it.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from agentcli.config.rules import parse_tool_list
from agentcli.permissions.policy import PermissionPolicy
from agentcli.permissions.types import PermissionMode
from agentcli.tools.base import Workspace
from agentcli.tools.ripgrep import find_rg

FILES = (
    "private/key.txt",
    "private/deep/inner.py",
    "src/private/notes.md",
    "src/app.py",
    "src/gen/out.py",
    "src/sub/gen/out.py",
    "src/gen/out.txt",
    "keys/server.pem",
    "top.pem",
    "cert.pem/inside.txt",
    "ab",
    "axb",
    "ax/yb",
    "secret.txt",
    "src/secret.txt",
    "a b/c d.txt",
    "[x].txt",
)


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    for rel in FILES:
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x\n")
    return root


def listing(cwd: Path, excludes: list[str]) -> set[str]:
    args = [find_rg(), "--no-config", "--files", "--hidden"]
    for glob in excludes:
        args += ["--glob", glob]
    done = subprocess.run(args, cwd=cwd, capture_output=True, text=True, check=False)
    return {os.path.normpath(cwd / line) for line in done.stdout.splitlines()}


@pytest.mark.parametrize(
    ("rule", "exact"),
    [
        ("Read(./private/**)", True),
        ("Read(./private)", True),
        ("Read(private)", True),  # no slash: any depth
        ("Read(*.pem)", True),
        ("Read(./a*b)", True),
        ("Read(./a?b)", True),
        ("Read(src/**/gen/*.py)", True),
        ("Read(**/secret.txt)", True),
        ("Read(./a b/**)", True),
        ("Read(./src/**)", True),
        ("Read(./[x].txt)", False),  # a class: left to the filter
        ("Read(./{ab,axb})", False),  # braces are literal in rules, alternatives in rg
        ("Read(./a**b)", False),
        ("Read(//etc/**)", False),  # nowhere in the tree
        ("Read(../shared/**)", False),
    ],
)
@pytest.mark.parametrize("below", ["", "src"])
def test_rg_excludes_never_hide_more_than_the_filter(tree, rule, exact, below):
    policy = PermissionPolicy(
        Workspace(root=tree),
        PermissionMode.DEFAULT,
        deny=parse_tool_list([rule], "test", tree),
    )
    search_filter = policy.search_filter("Glob")
    cwd = tree / below if below else tree
    everything = listing(cwd, [])

    excludes = search_filter.rg_excludes(str(cwd), str(cwd), str(cwd))
    kept_by_rg = listing(cwd, excludes)
    hidden = {path for path in everything if search_filter.hides(path, path)}

    excluded = everything - kept_by_rg
    assert excluded <= hidden, f"rg excluded readable files: {sorted(excluded - hidden)}"
    if exact and excludes:
        assert excluded == hidden
    if exact and not below:
        assert excludes, "an exact rule should become an rg glob"
