"""The test web site itself: a client that drops a kept-alive connection is expected
(WebFetch does so after its size cap) and must not print a traceback into the
suite's output, where it would hide a real one; a real error still prints."""

from __future__ import annotations

from http.server import BaseHTTPRequestHandler

import pytest

from tests.web.site import SiteServer


def report(server: SiteServer, error: Exception) -> None:
    """What the server does when a request's handler raised `error`."""
    try:
        raise error
    except Exception:
        server.handle_error(None, ("127.0.0.1", 50000))


@pytest.mark.parametrize("gone", [ConnectionResetError(104, "reset"), BrokenPipeError(32, "pipe")])
def test_a_client_gone_is_not_reported_a_bug_is(
    gone: Exception, capsys: pytest.CaptureFixture[str]
) -> None:
    server = SiteServer(("127.0.0.1", 0), BaseHTTPRequestHandler)
    try:
        report(server, gone)
        assert capsys.readouterr().err == ""
        report(server, ValueError("a bug in the handler"))
        printed = capsys.readouterr().err
    finally:
        server.server_close()
    assert "Traceback" in printed and "ValueError: a bug in the handler" in printed
