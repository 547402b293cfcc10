"""The sandbox tests skip locally without bubblewrap, and fail in CI (AGENTCLI_CI=1) instead."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
TEST = """
from tests.sandbox_support import needs_bwrap

def test_sandboxed(needs_bwrap):
    pass
"""


@pytest.mark.parametrize(("ci", "outcome"), [(False, "1 skipped"), (True, "1 error")])
def test_a_missing_bwrap_skips_locally_and_fails_in_ci(tmp_path, ci, outcome):
    (tmp_path / "test_probe.py").write_text(TEST)
    env = {k: v for k, v in os.environ.items() if k != "AGENTCLI_CI"}
    env.update(PATH=str(tmp_path / "no-bwrap-here"), PYTHONPATH=str(REPO))
    if ci:
        env["AGENTCLI_CI"] = "1"
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_probe.py"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,  # a bound for a hang; a loaded machine took over 60 s to start pytest
    )
    assert outcome in done.stdout, done.stdout
    if ci:
        assert "the sandbox tests must run in CI: bubblewrap is not installed" in done.stdout
