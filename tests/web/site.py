"""A loopback web site for WebFetch tests: pages, redirects and errors on 127.0.0.1.

`Site.page(path, body, content_type=...)`, `Site.redirect(path, location)` and
`Site.status(path, code)` declare what the site serves; `hits[path]` counts the
requests each path received (a cache hit sends none), `hosts` lists the `Host`
header of each. Standard library only, served from a thread; stopped when the
`site` fixture ends. `tls_site(context)` serves the same over HTTPS.
"""

from __future__ import annotations

import collections
import contextlib
import ssl
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest


@dataclass(frozen=True)
class _Answer:
    status: int
    body: bytes = b""
    headers: tuple[tuple[str, str], ...] = ()
    chunked: bool = False  # no Content-Length: the size is known only by reading


@dataclass
class Site:
    answers: dict[str, _Answer] = field(default_factory=dict)
    hits: collections.Counter[str] = field(default_factory=collections.Counter)
    hosts: list[str] = field(default_factory=list)
    port: int = 0
    scheme: str = "http"

    def url(self, path: str, host: str = "127.0.0.1") -> str:
        return f"{self.scheme}://{host}:{self.port}{path}"

    def page(
        self,
        path: str,
        body: str | bytes,
        *,
        content_type: str = "text/html; charset=utf-8",
        chunked: bool = False,
    ) -> str:
        data = body.encode() if isinstance(body, str) else body
        self.answers[path] = _Answer(200, data, (("content-type", content_type),), chunked)
        return self.url(path)

    def redirect(self, path: str, location: str, status: int = 302) -> str:
        self.answers[path] = _Answer(status, b"", (("location", location),))
        return self.url(path)

    def status(self, path: str, code: int, body: str = "") -> str:
        headers = (("content-type", "text/html"),)
        self.answers[path] = _Answer(code, body.encode(), headers)
        return self.url(path)


def _handler(site: Site) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: object) -> None:
            pass

        def do_GET(self) -> None:
            site.hits[self.path] += 1
            site.hosts.append(self.headers.get("host", ""))
            answer = site.answers.get(self.path, _Answer(404, b"<h1>Not Found</h1>"))
            self.send_response(answer.status)
            for name, value in answer.headers:
                self.send_header(name, value)
            if answer.chunked:
                self.send_header("transfer-encoding", "chunked")
                self.end_headers()
                self._send_chunked(answer.body)
                return
            self.send_header("content-length", str(len(answer.body)))
            self.end_headers()
            try:
                self.wfile.write(answer.body)
            except (BrokenPipeError, ConnectionResetError):  # the client stopped reading
                self.close_connection = True

        def _send_chunked(self, body: bytes) -> None:
            size = 64 * 1024
            try:
                for start in range(0, len(body), size):
                    piece = body[start : start + size]
                    self.wfile.write(f"{len(piece):x}\r\n".encode() + piece + b"\r\n")
                self.wfile.write(b"0\r\n\r\n")
            except (BrokenPipeError, ConnectionResetError):  # the client stopped reading
                self.close_connection = True

    return Handler


class SiteServer(ThreadingHTTPServer):
    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that goes away between requests (WebFetch closing a kept-alive
        connection after a size cap) is expected; anything else is printed as usual."""
        if isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError)):
            return
        super().handle_error(request, client_address)


@contextlib.contextmanager
def serving(tls: ssl.SSLContext | None = None) -> Iterator[Site]:
    """A site on 127.0.0.1 (over TLS with `tls`), until the block ends."""
    served = Site(scheme="http" if tls is None else "https")
    server = SiteServer(("127.0.0.1", 0), _handler(served))
    if tls is not None:
        server.socket = tls.wrap_socket(server.socket, server_side=True)
    server.daemon_threads = True
    served.port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield served
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


@pytest.fixture
def site() -> Iterator[Site]:
    with serving() as served:
        yield served
