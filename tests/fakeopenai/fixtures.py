"""Pytest fixture for the fake OpenAI-compatible server."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from .server import FakeOpenAI


@pytest.fixture
def fake_openai() -> Iterator[FakeOpenAI]:
    """A started fake server, stopped after the test (fails it on a server error)."""
    with FakeOpenAI(models=["qwen3-coder", "gpt-oss"]) as server:
        yield server
    if server.errors:
        pytest.fail("fake OpenAI server errors:\n" + "\n".join(server.errors), pytrace=False)
