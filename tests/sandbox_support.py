"""For tests that need a working bubblewrap: skip without it locally, fail without it in CI.

`.ci/run` installs bubblewrap and sets AGENTCLI_CI=1, so in CI a missing or
broken bwrap is a failure, never a silently skipped sandbox suite.
"""

from __future__ import annotations

import os
from functools import cache

import pytest

from agentcli.sandbox import Sandbox


@cache
def bwrap_problem() -> str | None:
    return Sandbox().problem([])


@pytest.fixture
def needs_bwrap() -> None:
    problem = bwrap_problem()
    if problem is None:
        return
    if os.environ.get("AGENTCLI_CI"):
        pytest.fail(f"the sandbox tests must run in CI: {problem}")
    pytest.skip(f"no usable bubblewrap here: {problem}")
