"""Something a group of tests needs (a program, a server): skipped without it, except in CI.

In CI (AGENTCLI_CI=1) everything these tests need is installed by `.ci/run`,
so a missing piece fails the test rather than letting it pass unseen.
"""

from __future__ import annotations

import os

import pytest


def require(problem: str | None, tests: str, missing: str) -> None:
    """Go on when `problem` is None; else skip (fail in CI) saying what is missing.
    `tests`: which tests ("the LiteLLM proxy tests"); `missing`: what ("no LiteLLM proxy")."""
    if problem is None:
        return
    if os.environ.get("AGENTCLI_CI"):
        pytest.fail(f"{tests} must run in CI: {problem}")
    pytest.skip(f"{missing} here: {problem}")
