"""The fake Messages API server: a scripted queue of responses behind real HTTP.

It runs `http.server` in background threads so one instance serves async tests in
the same process and `agentcli` subprocesses alike. Every request is validated like
the real API, recorded, and answered with the next scripted response. Nothing here
sleeps: tests wait on conditions (`wait_for_requests`, `Hang.reached`,
`RecordedRequest.finished`), and hung streams block on sockets that a disconnect,
a release or `stop()` wakes up.
"""

from __future__ import annotations

import collections
import itertools
import json
import selectors
import socket
import socketserver
import ssl
import struct
import sys
import threading
import traceback
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

from .cache import PromptCache, estimate_tokens
from .script import (
    ERROR_STATUS,
    CutStream,
    Hang,
    HttpError,
    Reply,
    Response,
    Scripted,
    StreamError,
    resolve,
)
from .server_tools import offers_web_search
from .sse import (
    Event,
    encode_event,
    error_event,
    message_object,
    output_tokens,
    searches,
    stream_events,
)
from .validation import validate_request

MESSAGES_PATH = "/v1/messages"
COUNT_TOKENS_PATH = "/v1/messages/count_tokens"
NO_RESPONSE_LEFT = "fake server: no scripted response left"
UNOFFERED_SEARCH = (
    "fake server: a web search was scripted, but the request does not offer the web_search "
    "tool (the real model could not have searched)"
)


def _searches_unoffered(response: Response, body: dict[str, Any]) -> bool:
    if isinstance(response, HttpError):
        return False
    reply = response if isinstance(response, Reply) else response.reply
    return searches(reply) > 0 and not offers_web_search(body)


@dataclass(eq=False)
class RecordedRequest:
    """One request as the server saw it, and how it was answered."""

    method: str
    path: str
    query: str
    headers: dict[str, str]
    raw_body: bytes
    body: Any
    # The HTTP status we answered with (None until decided).
    status: int | None = None
    # The error message we answered with, if any (validation, scripted error, ...).
    error: str | None = None
    # "complete", "cut", "stream_error", "client_disconnected" or "server_stopped".
    outcome: str = "pending"
    # Set once the server has finished writing (or abandoned) the response.
    finished: threading.Event = field(default_factory=threading.Event)

    @property
    def messages(self) -> list[dict[str, Any]]:
        return self.body.get("messages", []) if isinstance(self.body, dict) else []

    @property
    def stream(self) -> bool:
        return isinstance(self.body, dict) and bool(self.body.get("stream"))


class NoResponseLeft(LookupError):
    """The queue is empty and no default is set."""


class _ClientGone(Exception):
    """The client closed the connection while we were writing."""


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive and chunked bodies, like the real API
    server: _HTTPServer

    def log_message(self, format: str, *args: Any) -> None:
        pass  # requests are recorded instead; stderr noise would garble test output

    def do_POST(self) -> None:
        self._serve()

    do_GET = do_PUT = do_PATCH = do_DELETE = do_POST

    # -- reading -------------------------------------------------------------------

    def _read_body(self) -> bytes:
        if self.headers.get("transfer-encoding", "").lower() == "chunked":
            parts = []
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass  # trailers
                    return b"".join(parts)
                parts.append(self.rfile.read(size))
                self.rfile.readline()
        length = int(self.headers.get("content-length") or 0)
        return self.rfile.read(length) if length else b""

    def _serve(self) -> None:
        app = self.server.app
        raw = self._read_body()
        url = urlsplit(self.path)
        body: Any = None
        parse_error = None
        try:
            body = json.loads(raw) if raw else None
        except ValueError as err:
            parse_error = f"There was an error parsing the body: {err}"
        request = RecordedRequest(
            method=self.command,
            path=url.path,
            query=url.query,
            headers={k.lower(): v for k, v in self.headers.items()},
            raw_body=raw,
            body=body,
        )
        try:
            self._answer(app, request, parse_error)
        except _ClientGone:
            request.outcome = "server_stopped" if app.stopping else "client_disconnected"
            self.close_connection = True
        finally:
            if request.status is None:
                app.record(request)
            if request.outcome == "pending":
                request.outcome = "complete"
            request.finished.set()

    # -- deciding ------------------------------------------------------------------

    def _answer(
        self, app: FakeAnthropic, request: RecordedRequest, parse_error: str | None
    ) -> None:
        headers = request.headers
        if self.command != "POST" or request.path not in (MESSAGES_PATH, COUNT_TOKENS_PATH):
            return self._error(request, 404, "not_found_error", "Not Found")
        if app.api_key is not None and app.api_key not in (
            headers.get("x-api-key"),
            headers.get("authorization", "").removeprefix("Bearer "),
        ):
            return self._error(request, 401, "authentication_error", "invalid x-api-key")
        if "anthropic-version" not in headers:
            return self._error(
                request, 400, "invalid_request_error", "anthropic-version: header is required"
            )
        if parse_error is not None:
            return self._error(request, 400, "invalid_request_error", parse_error)
        counting = request.path == COUNT_TOKENS_PATH
        problem = validate_request(request.body, count_tokens=counting)
        if problem is not None:
            return self._error(request, 400, "invalid_request_error", problem)
        if counting:
            tokens = estimate_tokens(
                [request.body.get("tools"), request.body.get("system"), request.messages]
            )
            return self._json(request, 200, {"input_tokens": max(tokens, 1)})

        try:
            response = app.next_response(request.body)
        except NoResponseLeft:
            return self._error(request, 500, "api_error", NO_RESPONSE_LEFT)
        except Exception as err:
            app.errors.append(traceback.format_exc())
            return self._error(
                request, 500, "api_error", f"fake server: dynamic response raised {err!r}"
            )

        if _searches_unoffered(response, request.body):
            app.errors.append(UNOFFERED_SEARCH)
            return self._error(request, 500, "api_error", UNOFFERED_SEARCH)
        if isinstance(response, HttpError):
            return self._error(
                request, response.status, response.error_type, response.message, response.headers
            )
        if isinstance(response, StreamError) and not request.stream:
            status = ERROR_STATUS.get(response.error_type, 500)
            return self._error(request, status, response.error_type, response.message)
        self._message(app, request, response)

    # -- writing -------------------------------------------------------------------

    def _send(self, data: bytes) -> None:
        try:
            self.wfile.write(data)
            self.wfile.flush()
        except OSError as err:  # BrokenPipeError, ConnectionResetError, shut down by stop()
            raise _ClientGone from err

    def _head(self, status: int, headers: Iterable[tuple[str, str]]) -> None:
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        try:
            self.end_headers()
        except OSError as err:
            raise _ClientGone from err

    def _json(
        self,
        request: RecordedRequest,
        status: int,
        payload: dict[str, Any],
        headers: Iterable[tuple[str, str]] = (),
        request_id: str | None = None,
    ) -> None:
        request.status = status
        self.server.app.record(request)
        data = json.dumps(payload).encode()
        self._head(
            status,
            [
                ("Content-Type", "application/json"),
                ("Content-Length", str(len(data))),
                ("request-id", request_id or self.server.app.new_request_id()),
                *headers,
            ],
        )
        self._send(data)

    def _error(
        self,
        request: RecordedRequest,
        status: int,
        error_type: str,
        message: str,
        headers: Iterable[tuple[str, str]] = (),
    ) -> None:
        """The real API's error body, whose request_id matches the `request-id` header."""
        request.error = message
        request_id = self.server.app.new_request_id()
        payload = {
            "type": "error",
            "error": {"type": error_type, "message": message},
            "request_id": request_id,
        }
        self._json(request, status, payload, headers, request_id)

    def _abort(self, *, reset: bool = False) -> None:
        """Drop the connection without finishing the body."""
        self.close_connection = True
        if reset:
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.connection.close()

    def _message(self, app: FakeAnthropic, request: RecordedRequest, response: Response) -> None:
        reply = response if isinstance(response, Reply) else response.reply
        cached = app.cache.account(request.body)
        usage = {
            "input_tokens": cached.input_tokens,
            "cache_creation_input_tokens": cached.cache_creation_input_tokens,
            "cache_read_input_tokens": cached.cache_read_input_tokens,
            "output_tokens": output_tokens(reply),
            **reply.usage,
        }
        args = {"message_id": app.new_message_id(), "model": request.body["model"], "usage": usage}
        if request.stream:
            self._stream(app, request, response, stream_events(reply, **args))
        else:
            self._whole(app, request, response, json.dumps(message_object(reply, **args)).encode())

    def _whole(
        self, app: FakeAnthropic, request: RecordedRequest, response: Response, data: bytes
    ) -> None:
        self._start(
            app,
            request,
            response,
            [
                ("Content-Type", "application/json"),
                ("Content-Length", str(len(data))),
                ("request-id", app.new_request_id()),
            ],
        )
        if isinstance(response, CutStream):
            self._send(data[: len(data) // 2])
            request.outcome = "cut"
            return self._abort(reset=response.reset)
        if isinstance(response, Hang) and not response.before_headers:
            self._hold(response)
        self._send(data)

    def _start(
        self,
        app: FakeAnthropic,
        request: RecordedRequest,
        response: Response,
        headers: Iterable[tuple[str, str]],
    ) -> None:
        """Record the 200 and send its headers; a hang before the headers blocks first."""
        request.status = 200
        app.record(request)
        if isinstance(response, Hang) and response.before_headers:
            self._hold(response)
        self._head(200, headers)

    def _hold(self, response: Hang) -> None:
        """Block on the hang's gate; a client that leaves (or a stop) ends the response."""
        if response.gate.wait(self.connection) != "released":
            raise _ClientGone

    def _chunk(self, data: bytes) -> None:
        self._send(b"%x\r\n%s\r\n" % (len(data), data))

    def _events(self, events: list[Event]) -> None:
        for event in events:
            self._chunk(encode_event(event))

    def _stream(
        self, app: FakeAnthropic, request: RecordedRequest, response: Response, events: list[Event]
    ) -> None:
        self._start(
            app,
            request,
            response,
            [
                ("Content-Type", "text/event-stream; charset=utf-8"),
                ("Cache-Control", "no-cache"),
                ("Transfer-Encoding", "chunked"),
                ("request-id", app.new_request_id()),
            ],
        )
        split = len(events)  # a hang before the headers sends the whole stream once released
        held_whole = isinstance(response, Hang) and response.before_headers
        if not isinstance(response, Reply) and not held_whole:
            wanted = response.after_events
            split = len(events) // 2 if wanted is None else max(0, min(wanted, len(events)))
        self._events(events[:split])

        if isinstance(response, CutStream):
            request.outcome = "cut"
            return self._abort(reset=response.reset)
        if isinstance(response, StreamError):
            self._events([error_event(response.error_type, response.message)])
            request.error = response.message
            request.outcome = "stream_error"
        else:
            if isinstance(response, Hang) and not response.before_headers:
                self._hold(response)
            self._events(events[split:])
        self._send(b"0\r\n\r\n")


class _HTTPServer(ThreadingHTTPServer):
    """Tracks open connections so `stop()` can close idle keep-alive ones too."""

    daemon_threads = True
    request_queue_size = 128  # benchmarks open many connections at once

    def __init__(self, address: tuple[str, int], app: FakeAnthropic) -> None:
        self.app = app
        self._lock = threading.Lock()
        self._connections: dict[socket.socket, threading.Thread] = {}
        super().__init__(address, app.handler)

    def process_request(self, request: Any, client_address: Any) -> None:
        thread = threading.Thread(
            target=self.process_request_thread,
            args=(request, client_address),
            daemon=True,
            name="fakeapi-connection",
        )
        with self._lock:
            self._connections[request] = thread
        thread.start()

    def shutdown_request(self, request: Any) -> None:
        with self._lock:
            self._connections.pop(request, None)
        super().shutdown_request(request)

    def server_bind(self) -> None:
        # HTTPServer.server_bind() does a reverse DNS lookup (getfqdn); skip it.
        socketserver.TCPServer.server_bind(self)
        host, port = self.server_address[:2]
        self.server_name, self.server_port = str(host), int(port)

    def handle_error(self, request: Any, client_address: Any) -> None:
        if isinstance(sys.exc_info()[1], OSError):
            return  # the client went away between requests: not a server bug
        self.app.errors.append(traceback.format_exc())

    def close_connections(self) -> list[threading.Thread]:
        with self._lock:
            open_now = list(self._connections.items())
        for sock, _ in open_now:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        return [thread for _, thread in open_now]


class FakeAnthropic:
    """A local stand-in for the Anthropic Messages API, scripted by the test.

    Use as a context manager, or call `start()` / `stop()`. Responses are consumed in
    order, one per `POST /v1/messages` that passes validation; `default` answers once
    the queue is empty (otherwise a 500 "no scripted response left").
    """

    # Speaks the wire protocol; a server for another API brings its own (tests/fakeopenai).
    handler: type[BaseHTTPRequestHandler] = _Handler

    def __init__(
        self,
        responses: Iterable[Scripted] = (),
        *,
        default: Scripted | None = None,
        api_key: str | None = None,
        host: str = "127.0.0.1",
        port: int = 0,
        on_request: Callable[[RecordedRequest], None] | None = None,
        tls: ssl.SSLContext | None = None,
    ) -> None:
        self.default = default
        self.tls = tls  # serve HTTPS with this context (its certificate) instead of HTTP
        self.api_key = api_key
        self.cache = PromptCache()
        self.errors: list[str] = []
        self.on_request = on_request
        self._address = (host, port)
        self._queue: collections.deque[Scripted] = collections.deque(responses)
        self._requests: list[RecordedRequest] = []
        self._cond = threading.Condition()
        self._message_ids = itertools.count(1)
        self._request_ids = itertools.count(1)
        self._httpd: _HTTPServer | None = None
        self._accept_thread: threading.Thread | None = None
        self._wake: tuple[socket.socket, socket.socket] | None = None
        self._stopping = threading.Event()

    # -- lifecycle -----------------------------------------------------------------

    def start(self) -> FakeAnthropic:
        if self._httpd is not None:
            return self
        self._stopping.clear()
        self._httpd = _HTTPServer(self._address, self)
        self._wake = socket.socketpair()
        self._accept_thread = threading.Thread(
            target=self._accept_loop, args=(self._httpd, self._wake[0]), daemon=True, name="fakeapi"
        )
        self._accept_thread.start()
        return self

    def stop(self) -> None:
        """Stop accepting, drop open connections (ending hung streams) and join threads."""
        httpd, wake, accept_thread = self._httpd, self._wake, self._accept_thread
        if httpd is None or wake is None or accept_thread is None:
            return
        self._stopping.set()
        wake[1].send(b"x")
        accept_thread.join(timeout=5)
        httpd.server_close()
        for thread in httpd.close_connections():
            thread.join(timeout=5)
        for sock in wake:
            sock.close()
        self._httpd = self._wake = self._accept_thread = None

    def __enter__(self) -> FakeAnthropic:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    @staticmethod
    def _accept_loop(httpd: _HTTPServer, wake: socket.socket) -> None:
        # Our own loop instead of serve_forever(): it blocks without a poll interval and
        # stop() wakes it at once through the socket pair.
        httpd.socket.setblocking(False)
        with selectors.DefaultSelector() as selector:
            selector.register(httpd.socket, selectors.EVENT_READ)
            selector.register(wake, selectors.EVENT_READ)
            while True:
                ready = selector.select()
                if any(key.fileobj is wake for key, _ in ready):
                    return
                try:
                    conn, address = httpd.get_request()
                except OSError:  # BlockingIOError: another wake-up raced us
                    continue
                conn.setblocking(True)
                if httpd.app.tls is not None:
                    conn.settimeout(10)  # a client that never says hello must not stop us
                    try:
                        conn = httpd.app.tls.wrap_socket(conn, server_side=True)
                    except (ssl.SSLError, OSError):  # the client refused our certificate
                        conn.close()
                        continue
                    conn.settimeout(None)
                httpd.process_request(conn, address)

    @property
    def stopping(self) -> bool:
        return self._stopping.is_set()

    @property
    def port(self) -> int:
        if self._httpd is None:
            raise RuntimeError("fake server is not started")
        return self._httpd.server_address[1]

    @property
    def base_url(self) -> str:
        scheme = "https" if self.tls is not None else "http"
        return f"{scheme}://{self._address[0]}:{self.port}"

    # -- scripting -----------------------------------------------------------------

    def enqueue(self, *responses: Scripted) -> None:
        with self._cond:
            self._queue.extend(responses)

    @property
    def pending(self) -> int:
        """Scripted responses not consumed yet."""
        with self._cond:
            return len(self._queue)

    def assert_consumed(self) -> None:
        with self._cond:
            left = list(self._queue)
        assert not left, f"fake server: {len(left)} scripted response(s) never requested: {left}"

    def next_response(self, body: dict[str, Any]) -> Response:
        """Pop the next scripted response (raises NoResponseLeft when there is none)."""
        with self._cond:
            scripted = self._queue.popleft() if self._queue else self.default
        if scripted is None:
            raise NoResponseLeft(NO_RESPONSE_LEFT)
        return resolve(scripted, body)

    def reset(self) -> None:
        """Forget queued responses, recorded requests, errors and the prompt cache."""
        with self._cond:
            self._queue.clear()
            self._requests.clear()
            self.errors.clear()
        self.cache.clear()

    # -- recording -----------------------------------------------------------------

    def record(self, request: RecordedRequest) -> None:
        with self._cond:
            self._requests.append(request)
            self._cond.notify_all()
        if self.on_request is not None:
            self.on_request(request)

    @property
    def requests(self) -> list[RecordedRequest]:
        with self._cond:
            return list(self._requests)

    def wait_for_requests(self, n: int, timeout: float = 5.0) -> list[RecordedRequest]:
        """Block until at least `n` requests were answered (or started streaming)."""
        with self._cond:
            if not self._cond.wait_for(lambda: len(self._requests) >= n, timeout):
                got = [(r.path, r.status) for r in self._requests]
                raise TimeoutError(f"fake server: waited for {n} requests, got {len(got)}: {got}")
            return list(self._requests[:n])

    def new_message_id(self) -> str:
        return f"msg_fake{next(self._message_ids):016d}"

    def new_request_id(self) -> str:
        return f"req_fake{next(self._request_ids):016d}"

    def __repr__(self) -> str:
        state = self.base_url if self._httpd else "stopped"
        return f"<FakeAnthropic {state} pending={self.pending} requests={len(self.requests)}>"
