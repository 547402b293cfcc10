"""Pytest fixture for the fake API; import it from conftest.py or a test module."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from .server import FakeAnthropic


@pytest.fixture
def fake_api() -> Iterator[FakeAnthropic]:
    """A started fake server, stopped after the test.

    Fails the test at teardown if a dynamic response raised or the server hit an
    internal error, since those were only visible as a 500 to the client.
    """
    with FakeAnthropic() as server:
        yield server
    if server.errors:
        pytest.fail("fake API server errors:\n" + "\n".join(server.errors), pytrace=False)
