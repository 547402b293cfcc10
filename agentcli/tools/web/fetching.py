"""Getting one web page over HTTP(S), within limits the model cannot stretch.

The model names the URL, so everything here is bounded: a connect and a
read timeout, a size cap counted while the body streams (a lying or absent
Content-Length changes nothing), and redirects followed only within the
host the person allowed. A redirect to another host is not followed: it
comes back as a `Redirect` for the model to fetch again if it wants to,
which puts the new host through the permission gate.

Plain `http://` is upgraded to `https://`, as Claude Code does, except for
loopback addresses (a local dev server rarely speaks TLS).
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from urllib.parse import SplitResult, urljoin, urlsplit, urlunsplit

# httpx without its command-line tool (click, rich: ~60 ms of every start-up).
from agentcli.providers.httpx_lean import httpx

MAX_BYTES = 10 * 1024 * 1024
MAX_REDIRECTS = 10
CONNECT_TIMEOUT_S = 10.0
READ_TIMEOUT_S = 30.0
USER_AGENT = "agentcli (WebFetch)"
ACCEPT = "text/markdown, text/html;q=0.9, text/*;q=0.8, */*;q=0.5"
_REDIRECTS = frozenset({301, 302, 303, 307, 308})


class FetchError(Exception):
    """The page could not be fetched; the message is meant for the model."""


@dataclass(frozen=True, slots=True)
class Page:
    """A page as received: where it ended up, its status, type and body."""

    url: str
    status: int
    content_type: str
    charset: str | None
    body: bytes

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300

    def text(self) -> str:
        return self.body.decode(self.charset or "utf-8", errors="replace")


@dataclass(frozen=True, slots=True)
class Redirect:
    """A redirect to another host, not followed."""

    url: str
    status: int
    target: str


def checked_url(url: str) -> str:
    """The URL to fetch: absolute http(s) with a host, `http` upgraded unless loopback."""
    try:
        parts = urlsplit(url.strip())
        host = parts.hostname
        parts.port  # noqa: B018 -- raises ValueError for a port that is not a number
    except ValueError as exc:
        raise FetchError(f"Invalid URL {url!r}: {exc}") from exc
    if parts.scheme not in ("http", "https"):
        raise FetchError(f"Invalid URL {url!r}: only http:// and https:// URLs can be fetched.")
    if not host:
        raise FetchError(f"Invalid URL {url!r}: it names no host.")
    if parts.username or parts.password:
        raise FetchError(f"Invalid URL {url!r}: URLs with a user name or password are refused.")
    scheme = "http" if parts.scheme == "http" and is_loopback(host) else "https"
    return urlunsplit((scheme, parts.netloc, parts.path, parts.query, parts.fragment))


def is_loopback(host: str) -> bool:
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def same_site(source: str, target: str) -> bool:
    """May a redirect from `source` to `target` be followed? Only to the same host
    (`www.` aside) and port, and never from https down to http."""
    a, b = urlsplit(source), urlsplit(target)
    if a.scheme == "https" and b.scheme != "https":
        return False
    if b.scheme not in ("http", "https"):
        return False
    return _bare_host(a) == _bare_host(b) and _port(a) == _port(b)


def _bare_host(parts: SplitResult) -> str:
    return (parts.hostname or "").lower().removeprefix("www.")


def _port(parts: SplitResult) -> int | None:
    try:
        port = parts.port
    except ValueError:
        return None
    return port if port is not None else {"http": 80, "https": 443}.get(parts.scheme)


async def fetch(url: str, *, max_bytes: int = MAX_BYTES) -> Page | Redirect:
    """GET `url` (already `checked_url`), following same-host redirects."""
    timeout = httpx.Timeout(READ_TIMEOUT_S, connect=CONNECT_TIMEOUT_S)
    headers = {"user-agent": USER_AGENT, "accept": ACCEPT}
    async with httpx.AsyncClient(timeout=timeout, headers=headers, trust_env=False) as client:
        current = url
        for _ in range(MAX_REDIRECTS + 1):
            found = await _get(client, current, max_bytes)
            if isinstance(found, Page):
                return found
            if not same_site(current, found.target):
                return found
            current = found.target
    raise FetchError(f"Too many redirects (more than {MAX_REDIRECTS}) fetching {url}.")


async def _get(client: httpx.AsyncClient, url: str, max_bytes: int) -> Page | Redirect:
    try:
        async with client.stream("GET", url) as response:
            if response.status_code in _REDIRECTS and "location" in response.headers:
                target = urljoin(url, response.headers["location"])
                return Redirect(url, response.status_code, target)
            body = await _read_capped(response, max_bytes)
            return Page(
                url=url,
                status=response.status_code,
                content_type=_media_type(response.headers.get("content-type", "")),
                charset=response.charset_encoding,
                body=body,
            )
    except httpx.TimeoutException as exc:
        raise FetchError(f"Timed out fetching {url} ({type(exc).__name__}).") from exc
    except httpx.HTTPError as exc:
        raise FetchError(f"Could not fetch {url}: {exc or type(exc).__name__}") from exc


async def _read_capped(response: httpx.Response, max_bytes: int) -> bytes:
    over = f"The page at {response.url} is larger than {size_text(max_bytes)}, the most read."
    declared = response.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > max_bytes:
        raise FetchError(over)
    chunks: list[bytes] = []
    size = 0
    async for chunk in response.aiter_bytes():
        size += len(chunk)
        if size > max_bytes:
            raise FetchError(over)
        chunks.append(chunk)
    return b"".join(chunks)


def _media_type(header: str) -> str:
    return header.split(";")[0].strip().lower()


def size_text(size: int) -> str:
    """`10 MB`, `2.5 kB`, `312 bytes`: a size for people."""
    for unit, scale in (("MB", 1024 * 1024), ("kB", 1024)):
        if size >= scale:
            return f"{size / scale:.3g} {unit}"
    return f"{size} bytes"
