"""HTTP/1.1 over asyncio streams: the model requests' client, without httpx's import.

httpx, httpcore, h11 and anyio cost about a third of a one-shot `-p hi` to
import, for one POST whose answer is a stream of lines. This client sends that
POST itself: one TCP (or TLS, with the context of providers/tls.py) connection,
kept for the next request when the response was read to its end (for 5 s, as
httpx keeps one); the request
with a Content-Length; a response framed by Content-Length, chunked encoding or
the connection's close; gzip and deflate bodies (what httpx asks for, and
decodes, here); its lines split as httpx's `aiter_lines` splits them.

Waiting is bounded as httpx bounds it: `connect_s` to connect (TLS included),
then `idle_s` for each write and for each read, the headers' included.
Failures are raised under httpx's names (ConnectError, ConnectTimeout,
ReadTimeout, WriteTimeout, ReadError, WriteError, RemoteProtocolError, all
TransportErrors), each
from the OS or TLS error behind it, so providers/failures.py words them as it
words httpx's.

What it does not do, httpx does (providers/model_http.py picks): proxies, URLs
with a user or a query, non-ASCII hosts, and redirects (`NeedsHttpx`, raised
before any response is handed over, for a redirect after the request was
answered with nothing but the redirect).
"""

from __future__ import annotations

import asyncio
import codecs
import re
import socket
import ssl
import time
import zlib
from collections.abc import AsyncIterator, Awaitable, Mapping
from dataclasses import dataclass
from urllib.parse import urlsplit

_MAX_HEADER_LINE = 64 * 1024
_MAX_HEADERS = 200
_READ_SIZE = 64 * 1024
# An idle connection older than this is closed rather than used (httpx's default): a
# connection a NAT or a load balancer dropped in silence would hang the next request.
KEEPALIVE_EXPIRY_S = 5.0
_DEFAULT_PORTS = {"http": 80, "https": 443}
_HEADER_NAME = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")


class TransportError(Exception):
    """No (whole) HTTP answer: the connection failed, fell silent or broke."""


class ConnectError(TransportError):
    pass


class TimeoutException(TransportError):
    pass


class ConnectTimeout(TimeoutException):
    pass


class ReadTimeout(TimeoutException):
    pass


class WriteTimeout(TimeoutException):
    pass


class ReadError(TransportError):
    """Reading the response failed (a reset connection, a broken TLS record)."""


class WriteError(TransportError):
    """Sending the request failed (the server closed the connection)."""


class RemoteProtocolError(TransportError):
    """The server broke HTTP: closed midway, or sent what is not a response."""


class _Unanswered(Exception):
    """The connection ended before the first byte of a response."""


def _public(error: Exception) -> Exception:
    """What an unanswered request raises: the read's error, or httpx's words for a close."""
    if isinstance(error, _Unanswered):
        if isinstance(error.__cause__, ReadError):
            return error.__cause__
        return RemoteProtocolError("Server disconnected without sending a response.")
    return error


class NeedsHttpx(Exception):
    """What this client does not do (a redirect, a URL it does not take): httpx does it."""


@dataclass(frozen=True, slots=True)
class Origin:
    """Where requests go: scheme, host, port, and the base path requests go under."""

    scheme: str
    host: str
    port: int
    base_path: str  # without its trailing slash

    @property
    def url(self) -> str:
        default = _DEFAULT_PORTS[self.scheme] == self.port
        host = f"[{self.host}]" if ":" in self.host else self.host
        port = "" if default else f":{self.port}"
        return f"{self.scheme}://{host}{port}{self.base_path}"

    @property
    def host_header(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return host if _DEFAULT_PORTS[self.scheme] == self.port else f"{host}:{self.port}"


def origin_of(base_url: str) -> Origin:
    """The origin of `base_url`. Raises NeedsHttpx for what this client does not take:
    a scheme other than http(s), a user or password, a query or fragment, a host that
    is not ASCII, a bad port."""
    try:
        parts = urlsplit(base_url.strip())
        port = parts.port
    except ValueError as error:
        raise NeedsHttpx(f"the URL {base_url!r}: {error}") from error
    scheme = parts.scheme.lower()
    host = parts.hostname or ""
    if scheme not in _DEFAULT_PORTS or not host or not host.isascii():
        raise NeedsHttpx(f"the URL {base_url!r}")
    if parts.username is not None or parts.password is not None or parts.query or parts.fragment:
        raise NeedsHttpx(f"the URL {base_url!r}")
    if not parts.path.isascii() or any(c in parts.path for c in " \r\n\t"):
        raise NeedsHttpx(f"the URL {base_url!r}")
    return Origin(scheme, host, port or _DEFAULT_PORTS[scheme], parts.path.rstrip("/"))


class Headers:
    """A response's headers, found by name whatever their case (repeated ones joined)."""

    def __init__(self, pairs: list[tuple[str, str]]) -> None:
        self._pairs = pairs
        self._by_name: dict[str, str] = {}
        for name, value in pairs:
            key = name.lower()
            self._by_name[key] = f"{self._by_name[key]}, {value}" if key in self._by_name else value

    def get(self, name: str, default: str | None = None) -> str | None:
        return self._by_name.get(name.lower(), default)

    def __getitem__(self, name: str) -> str:
        return self._by_name[name.lower()]

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name.lower() in self._by_name

    def items(self) -> list[tuple[str, str]]:
        return list(self._pairs)


class _Connection:
    """One open connection and whether it may carry another request."""

    def __init__(
        self, sock: socket.socket, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        self.sock = sock
        self.reader = reader
        self.writer = writer
        self.loop = asyncio.get_running_loop()
        self.idle_since = 0.0

    def usable(self) -> bool:
        """Still open, nothing unread (the server did not close it while it was idle), and
        of the running event loop (a front end may run one loop after another)."""
        if self.writer.is_closing() or self.reader.at_eof():
            return False
        try:
            return asyncio.get_running_loop() is self.loop
        except RuntimeError:
            return False

    def close(self) -> None:
        if self.loop.is_closed():  # its loop is gone: only the socket is left to close
            self.sock.close()
        else:
            self.writer.close()


class Response:
    """A response whose body is read as it arrives; closing it before its end closes
    its connection."""

    def __init__(
        self,
        client: LeanClient,
        connection: _Connection,
        status_code: int,
        reason_phrase: str,
        headers: Headers,
        keep_alive: bool,
        body_kind: str,
        length: int,
    ) -> None:
        self._client = client
        self._connection: _Connection | None = connection
        self.status_code = status_code
        self.reason_phrase = reason_phrase
        self.headers = headers
        self._keep_alive = keep_alive
        self._body_kind = body_kind  # "length", "chunked" or "close"
        self._left = length  # of a Content-Length body
        self._decoder = _content_decoder(headers.get("content-encoding"))

    @property
    def is_success(self) -> bool:
        return 200 <= self.status_code < 300

    async def aiter_bytes(self) -> AsyncIterator[bytes]:
        """The body, decoded (gzip, deflate), as it arrives."""
        async for raw in self._raw():
            data = self._decoder.decompress(raw) if self._decoder is not None else raw
            if data:
                yield data
        if self._decoder is not None:
            rest = self._decoder.flush()
            if rest:
                yield rest

    async def aread(self) -> bytes:
        return b"".join([chunk async for chunk in self.aiter_bytes()])

    async def aiter_lines(self) -> AsyncIterator[str]:
        """The body's text a line at a time, without line endings: httpx's `aiter_lines`
        (the lines of `str.splitlines`, a `\\r\\n` split across two reads kept whole)."""
        text = codecs.getincrementaldecoder(_charset(self.headers))(errors="replace")
        lines = _LineSplitter()
        async for data in self.aiter_bytes():
            for line in lines.feed(text.decode(data)):
                yield line
        for line in lines.feed(text.decode(b"", final=True)):
            yield line
        for line in lines.flush():
            yield line

    async def aclose(self) -> None:
        """Done with the response: its connection is closed unless it was read to its end."""
        connection, self._connection = self._connection, None
        if connection is not None:
            connection.close()

    async def _raw(self) -> AsyncIterator[bytes]:
        connection = self._connection
        if connection is None:
            return
        reader = connection.reader
        idle = self._client.idle_s
        if self._body_kind == "length":
            while self._left > 0:
                data = await _read(reader.read(min(self._left, _READ_SIZE)), idle)
                if not data:
                    raise RemoteProtocolError(
                        "peer closed connection without sending complete message body"
                    )
                self._left -= len(data)
                yield data
        elif self._body_kind == "chunked":
            async for data in _chunks(reader, idle):
                yield data
        else:
            while data := await _read(reader.read(_READ_SIZE), idle):
                yield data
        self._finish()

    def _finish(self) -> None:
        """The body was read to its end: the connection serves the next request."""
        connection, self._connection = self._connection, None
        if connection is None:
            return
        if self._keep_alive and self._body_kind != "close" and connection.usable():
            self._client.keep(connection)
        else:
            connection.close()


class LeanClient:
    """Requests to one origin over one kept-alive connection at a time."""

    def __init__(
        self,
        base_url: str,
        headers: Mapping[str, str],
        *,
        connect_s: float,
        idle_s: float,
        tls: ssl.SSLContext | None,
    ) -> None:
        self.origin = origin_of(base_url)  # NeedsHttpx for a URL it does not take
        self.headers = dict(headers)
        self.connect_s = connect_s
        self.idle_s = idle_s
        self._tls = tls if self.origin.scheme == "https" else None
        self._idle: _Connection | None = None

    def keep(self, connection: _Connection) -> None:
        if self._idle is not None:
            self._idle.close()
        connection.idle_since = time.monotonic()
        self._idle = connection

    async def aclose(self) -> None:
        idle, self._idle = self._idle, None
        if idle is not None:
            idle.close()

    async def open(
        self, method: str, path: str, content: bytes, headers: Mapping[str, str] | None = None
    ) -> Response:
        """Send the request and read the response's head. Raises the TransportErrors, and
        NeedsHttpx for a redirect (its body read, its connection kept or closed)."""
        head = self._head_of(method, path, content, headers or {})
        kept = self._take_idle()
        try:
            response = await self._exchange(kept or await self._connect(), head, content)
        except (WriteError, _Unanswered) as error:
            if kept is None:
                raise _public(error)  # a read error keeps its cause
            # The kept connection was closed by the server while idle: nothing was
            # answered, so the request goes once more, on a new connection.
            try:
                response = await self._exchange(await self._connect(), head, content)
            except _Unanswered as again:
                raise _public(again)
        if 300 <= response.status_code < 400 and response.headers.get("location"):
            await response.aread()
            raise NeedsHttpx(f"a redirect ({response.status_code})")
        return response

    async def _exchange(self, connection: _Connection, head: bytes, content: bytes) -> Response:
        try:
            await self._send(connection, head, content)
            return await self._head(connection)
        except BaseException:
            connection.close()
            raise

    def _take_idle(self) -> _Connection | None:
        idle, self._idle = self._idle, None
        if idle is None:
            return None
        fresh = time.monotonic() - idle.idle_since < KEEPALIVE_EXPIRY_S
        if not (fresh and idle.usable()):
            idle.close()
            return None
        return idle

    async def _connect(self) -> _Connection:
        origin = self.origin
        try:
            async with asyncio.timeout(self.connect_s):
                return await self._open_first(origin)
        except TimeoutError as error:
            raise ConnectTimeout("timed out while connecting") from error
        except (OSError, ssl.SSLError) as error:  # ssl.SSLError is an OSError too
            raise ConnectError(str(error) or type(error).__name__) from error

    async def _open_first(self, origin: Origin) -> _Connection:
        """A connection to the first of the host's addresses that takes one; the first
        address's error when none does (every address of `localhost` refused, say)."""
        loop = asyncio.get_running_loop()
        addresses = await loop.getaddrinfo(origin.host, origin.port, type=socket.SOCK_STREAM)
        first: OSError | None = None
        for family, kind, proto, _name, address in addresses:
            sock = socket.socket(family, kind, proto)
            try:
                sock.setblocking(False)
                await loop.sock_connect(sock, address)
            except OSError as error:
                sock.close()
                first = first or error
                continue
            except BaseException:
                sock.close()
                raise
            try:
                reader, writer = await asyncio.open_connection(
                    sock=sock,
                    ssl=self._tls,
                    server_hostname=origin.host if self._tls is not None else None,
                    limit=_MAX_HEADER_LINE,
                )
            except BaseException:
                sock.close()
                raise
            return _Connection(sock, reader, writer)
        raise first or OSError(f"no address found for {origin.host}")

    def _head_of(self, method: str, path: str, content: bytes, extra: Mapping[str, str]) -> bytes:
        """The request line and headers: httpx's defaults (Host, Accept, Accept-Encoding,
        Connection) unless given, the client's, the request's, and the Content-Length.
        A name or value that cannot go on the wire is NeedsHttpx (httpx says why)."""
        target = self.origin.base_path + "/" + path.lstrip("/")
        headers = {
            "Host": self.origin.host_header,
            "Accept": "*/*",
            "Accept-Encoding": "gzip, deflate",
            "Connection": "keep-alive",
        }
        for given in (self.headers, extra):
            names = {name.lower() for name in given}
            headers = {k: v for k, v in headers.items() if k.lower() not in names}
            headers.update(given)
        headers["Content-Length"] = str(len(content))
        lines = [f"{method} {target} HTTP/1.1"]
        for name, value in headers.items():
            if not _HEADER_NAME.fullmatch(name) or any(c in value for c in "\r\n\0"):
                raise NeedsHttpx(f"the header {name!r}")
            lines.append(f"{name}: {value}")
        try:
            return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")
        except UnicodeEncodeError as error:
            raise NeedsHttpx(f"a header that is not Latin-1: {error}") from error

    async def _send(self, connection: _Connection, head: bytes, content: bytes) -> None:
        try:
            connection.writer.write(head + content)
            async with asyncio.timeout(self.idle_s):
                await connection.writer.drain()
        except TimeoutError as error:
            raise WriteTimeout("timed out while sending the request") from error
        except OSError as error:
            raise WriteError(str(error) or type(error).__name__) from error

    async def _head(self, connection: _Connection) -> Response:
        reader = connection.reader
        while True:
            try:
                line = await _line(reader, self.idle_s)
            except ReadError as error:
                raise _Unanswered from error
            if not line:
                raise _Unanswered
            version, status, reason = _status_line(line)
            headers = await _headers(reader, self.idle_s)
            if not 100 <= status < 200:
                break
            if status == 101:
                raise RemoteProtocolError("the server switched protocols")
        return self._response(connection, version, status, reason, headers)

    def _response(
        self, connection: _Connection, version: str, status: int, reason: str, headers: Headers
    ) -> Response:
        tokens = {t.strip().lower() for t in (headers.get("connection") or "").split(",")}
        keep_alive = version == "HTTP/1.1" and "close" not in tokens
        coding = (headers.get("transfer-encoding") or "").strip().lower()
        length = headers.get("content-length")
        if status in (204, 304):
            kind, size = "length", 0
        elif coding == "chunked":
            kind, size = "chunked", 0
        elif coding:
            raise RemoteProtocolError(f"a transfer encoding this client does not read: {coding}")
        elif length is not None:
            kind, size = "length", _content_length(length)
        else:
            kind, size = "close", 0
        return Response(self, connection, status, reason, headers, keep_alive, kind, size)


async def _read(pending: Awaitable[bytes], idle_s: float) -> bytes:
    """One read, within `idle_s`."""
    try:
        async with asyncio.timeout(idle_s):
            return await pending
    except TimeoutError as error:
        raise ReadTimeout("timed out while waiting for the server") from error
    except OSError as error:  # a reset, a broken TLS record (ssl.SSLError)
        raise ReadError(str(error) or type(error).__name__) from error


async def _line(reader: asyncio.StreamReader, idle_s: float) -> bytes:
    try:
        return await _read(reader.readline(), idle_s)
    except (ValueError, asyncio.LimitOverrunError) as error:
        raise RemoteProtocolError("a response header line is too long") from error


def _status_line(line: bytes) -> tuple[str, int, str]:
    text = line.decode("latin-1").rstrip("\r\n")
    version, _, rest = text.partition(" ")
    code, _, reason = rest.partition(" ")
    if version not in ("HTTP/1.1", "HTTP/1.0") or len(code) != 3 or not code.isdigit():
        raise RemoteProtocolError(f"not an HTTP response: {text[:80]!r}")
    return version, int(code), reason


async def _headers(reader: asyncio.StreamReader, idle_s: float) -> Headers:
    pairs: list[tuple[str, str]] = []
    while True:
        line = await _line(reader, idle_s)
        if not line:
            raise RemoteProtocolError("Server disconnected without sending a response.")
        text = line.decode("latin-1").rstrip("\r\n")
        if not text:
            return Headers(pairs)
        name, colon, value = text.partition(":")
        if not colon or not name or name != name.strip() or len(pairs) >= _MAX_HEADERS:
            raise RemoteProtocolError(f"a malformed response header: {text[:80]!r}")
        pairs.append((name, value.strip()))


def _content_length(value: str) -> int:
    values = {v.strip() for v in value.split(",")}
    if len(values) != 1 or not (size := values.pop()).isdigit():
        raise RemoteProtocolError(f"a malformed Content-Length: {value!r}")
    return int(size)


async def _chunks(reader: asyncio.StreamReader, idle_s: float) -> AsyncIterator[bytes]:
    """A chunked body's data, as it arrives; a close before its last chunk is an error."""
    cut = "peer closed connection without sending complete message body: incomplete chunked read"
    while True:
        line = (await _line(reader, idle_s)).strip()
        if not line:
            raise RemoteProtocolError(cut)
        size_text = line.split(b";", 1)[0].strip()
        try:
            size = int(size_text, 16)
        except ValueError:
            raise RemoteProtocolError(f"a malformed chunk size: {size_text[:20]!r}") from None
        if size == 0:
            while (await _line(reader, idle_s)).strip():
                pass  # trailers
            return
        while size > 0:
            data = await _read(reader.read(min(size, _READ_SIZE)), idle_s)
            if not data:
                raise RemoteProtocolError(cut)
            size -= len(data)
            yield data
        if (await _line(reader, idle_s)).strip():
            raise RemoteProtocolError("a chunk longer than its size")


class _Deflate:
    """A `deflate` body: zlib-wrapped as the RFC says, or raw as some servers send it."""

    def __init__(self) -> None:
        self._inner = zlib.decompressobj()
        self._first = True

    def decompress(self, data: bytes) -> bytes:
        if self._first:
            self._first = False
            try:
                return self._inner.decompress(data)
            except zlib.error:
                self._inner = zlib.decompressobj(-zlib.MAX_WBITS)
        return self._inner.decompress(data)

    def flush(self) -> bytes:
        return self._inner.flush()


class _Decoding:
    """Content-Encoding `gzip` and `deflate`, in the order they were applied, undone."""

    def __init__(self, codings: list[str]) -> None:
        self._steps = [
            zlib.decompressobj(zlib.MAX_WBITS | 16) if coding == "gzip" else _Deflate()
            for coding in reversed(codings)
        ]

    def decompress(self, data: bytes) -> bytes:
        try:
            for step in self._steps:
                data = step.decompress(data)
        except zlib.error as error:
            raise RemoteProtocolError(f"the response body could not be decoded: {error}") from None
        return data

    def flush(self) -> bytes:
        data = b""
        try:
            for step in self._steps:
                data = step.decompress(data) + step.flush()
        except zlib.error as error:
            raise RemoteProtocolError(f"the response body could not be decoded: {error}") from None
        return data


def _content_decoder(value: str | None) -> _Decoding | None:
    """gzip and deflate are undone; any other coding is passed through, as httpx does
    with the codings it has no decoder for (none other is asked for)."""
    codings = [c.strip().lower() for c in (value or "").split(",")]
    known = [c for c in codings if c in ("gzip", "deflate")]
    return _Decoding(known) if known else None


def _charset(headers: Headers) -> str:
    """The body's text encoding: the Content-Type's charset if Python knows it, else UTF-8."""
    for param in (headers.get("content-type") or "").split(";")[1:]:
        key, _, value = param.partition("=")
        if key.strip().lower() == "charset":
            name = value.strip().strip("'\"")
            try:
                return codecs.lookup(name).name
            except LookupError:
                break
    return "utf-8"


class _LineSplitter:
    """Text fed in pieces, out in the lines `str.splitlines` makes of the whole: a line
    is held until its ending arrives, a `\\r` until what follows shows whether a `\\n`
    belongs to it."""

    _ENDINGS = "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"

    def __init__(self) -> None:
        self._held = ""

    def feed(self, text: str) -> list[str]:
        text = self._held + text
        self._held = ""
        if not text:
            return []
        if text.endswith("\r"):  # a "\n" may follow in the next piece
            self._held = "\r"
            text = text[:-1]
            if not text:
                return []
        lines = text.splitlines()
        if text[-1] not in self._ENDINGS:
            self._held = lines.pop() + self._held
        return lines

    def flush(self) -> list[str]:
        held, self._held = self._held, ""
        return [held.rstrip("\r")] if held else []
