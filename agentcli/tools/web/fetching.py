"""Getting one web page over HTTP(S), within limits the model cannot stretch.

The model names the URL, so everything here is bounded: a connect and a
read timeout, a size cap counted while the body streams (a lying or absent
Content-Length changes nothing), and redirects followed only within the
host the person allowed. A redirect to another host is not followed: it
comes back as a `Redirect` for the model to fetch again if it wants to,
which puts the new host through the permission gate.

The URL is read once (tools/web/hosts.py) and the canonical URL is fetched,
so the client never reads a host the permission check did not. Each
connection is pinned: a DNS name is resolved here, every address it stands
for is put to the call's `Reach` check (deny rules, private addresses: see
permissions/web_rules.py `RuleWebReach`), and the request goes to one of those
very addresses (the name kept in the `Host` header, the TLS server name and
the certificate check), so a name cannot pass the check with one answer and
connect with another (DNS rebinding). A followed redirect is resolved and
checked again. `localhost` and `*.localhost` are connected to 127.0.0.1 or
::1 without a lookup.

Plain `http://` is upgraded to `https://`, as Claude Code does, except for
loopback hosts (a local dev server rarely speaks TLS).
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from urllib.parse import urljoin

# httpx without its command-line tool (click, rich: ~60 ms of every start-up).
from agentcli.providers.httpx_lean import httpx
from agentcli.providers.tls import context as tls_context
from agentcli.tools.web.hosts import (
    LOOPBACK_V4,
    LOOPBACK_V6,
    Host,
    IPAddress,
    UrlError,
    WebTarget,
    canonical_address,
    parse_url,
)

MAX_BYTES = 10 * 1024 * 1024
MAX_REDIRECTS = 10
CONNECT_TIMEOUT_S = 10.0
READ_TIMEOUT_S = 30.0
USER_AGENT = "agentcli (WebFetch)"
ACCEPT = "text/markdown, text/html;q=0.9, text/*;q=0.8, */*;q=0.5"
_REDIRECTS = frozenset({301, 302, 303, 307, 308})

# The addresses a DNS name stands for (`resolve_name`; tests give their own).
Resolver = Callable[[str, int], Awaitable[list[IPAddress]]]
# Why a connection to this target at these addresses may not be made; None: it may.
Reach = Callable[[WebTarget, list[IPAddress]], str | None]


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
    """A redirect to another host, not followed (`target`: its canonical URL)."""

    url: str
    status: int
    target: str


def checked_target(url: str) -> WebTarget:
    """The URL to fetch, read strictly; `http` upgraded to `https` unless loopback."""
    try:
        target = parse_url(url)
    except UrlError as exc:
        raise FetchError(str(exc)) from exc
    if target.scheme == "http" and not target.host.is_loopback:
        return target.with_scheme("https")
    return target


def checked_url(url: str) -> str:
    """`checked_target`'s canonical URL."""
    return checked_target(url).url


def same_site(source: WebTarget, target: WebTarget) -> bool:
    """May a redirect from `source` to `target` be followed? Only to the same host
    (`www.` aside, for names) and port, and never from https down to http."""
    if source.scheme == "https" and target.scheme != "https":
        return False
    return _bare_host(source.host) == _bare_host(target.host) and source.port == target.port


def _bare_host(host: Host) -> str:
    return host.name.removeprefix("www.") if host.address is None else host.name


async def resolve_name(name: str, port: int) -> list[IPAddress]:
    """The addresses the system resolver gives for `name`, in its order."""
    infos = await asyncio.get_running_loop().getaddrinfo(name, port, type=socket.SOCK_STREAM)
    return [ipaddress.ip_address(str(info[4][0]).split("%")[0]) for info in infos]


async def fetch(
    target: WebTarget,
    reach: Reach,
    *,
    resolver: Resolver = resolve_name,
    max_bytes: int = MAX_BYTES,
) -> Page | Redirect:
    """GET `target` (from `checked_target`), following same-host redirects."""
    timeout = httpx.Timeout(READ_TIMEOUT_S, connect=CONNECT_TIMEOUT_S)
    headers = {"user-agent": USER_AGENT, "accept": ACCEPT}
    # No connection is kept: each request connects to the address checked for it.
    limits = httpx.Limits(max_keepalive_connections=0)
    async with httpx.AsyncClient(
        timeout=timeout, headers=headers, trust_env=False, limits=limits, verify=tls_context()
    ) as client:
        current = target
        for _ in range(MAX_REDIRECTS + 1):
            found = await _get(client, current, reach, resolver, max_bytes)
            if isinstance(found, Page):
                return found
            following, redirect = found
            if not same_site(current, following):
                return redirect
            current = following
    raise FetchError(f"Too many redirects (more than {MAX_REDIRECTS}) fetching {target.url}.")


async def _get(
    client: httpx.AsyncClient, target: WebTarget, reach: Reach, resolver: Resolver, max_bytes: int
) -> Page | tuple[WebTarget, Redirect]:
    """One request to one checked address of the target's host (the next one when a
    connection cannot be made)."""
    addresses = await _addresses(target, resolver)
    refusal = reach(target, addresses)
    if refusal is not None:
        raise FetchError(f"Not fetched: {refusal}")
    failed: httpx.TransportError | None = None
    for address in addresses:
        try:
            return await _get_at(client, target, address, max_bytes)
        except (httpx.ConnectError, httpx.ConnectTimeout) as exc:
            failed = exc
    if isinstance(failed, httpx.ConnectTimeout):
        raise FetchError(f"Timed out fetching {target.url} (ConnectTimeout).") from failed
    raise FetchError(f"Could not fetch {target.url}: {failed}") from failed


async def _addresses(target: WebTarget, resolver: Resolver) -> list[IPAddress]:
    host = target.host
    if host.address is not None:
        return [host.address]
    if host.is_localhost:
        return [LOOPBACK_V4, LOOPBACK_V6]
    try:
        found = await asyncio.wait_for(resolver(host.name, target.port), CONNECT_TIMEOUT_S)
    except (OSError, TimeoutError) as exc:
        raise FetchError(f"Could not resolve {host.name}: {exc or type(exc).__name__}") from exc
    addresses = list(dict.fromkeys(canonical_address(address) for address in found))
    if not addresses:
        raise FetchError(f"Could not resolve {host.name}: no address.")
    return addresses


async def _get_at(
    client: httpx.AsyncClient, target: WebTarget, address: IPAddress, max_bytes: int
) -> Page | tuple[WebTarget, Redirect]:
    url = target.url
    pinned = WebTarget(target.scheme, Host.of_address(address), target.port, target.path_query)
    extensions: dict[str, str] = {}
    if target.scheme == "https" and target.host.address is None:
        extensions["sni_hostname"] = target.host.name  # the certificate is checked for it
    try:
        async with client.stream(
            "GET", pinned.url, headers={"host": target.authority}, extensions=extensions
        ) as response:
            if response.status_code in _REDIRECTS and "location" in response.headers:
                return _redirect(url, response.status_code, response.headers["location"])
            body = await _read_capped(response, url, max_bytes)
            return Page(
                url=url,
                status=response.status_code,
                content_type=_media_type(response.headers.get("content-type", "")),
                charset=response.charset_encoding,
                body=body,
            )
    except (httpx.ConnectError, httpx.ConnectTimeout):
        raise  # the next address is tried
    except httpx.TimeoutException as exc:
        raise FetchError(f"Timed out fetching {url} ({type(exc).__name__}).") from exc
    except httpx.HTTPError as exc:
        raise FetchError(f"Could not fetch {url}: {exc or type(exc).__name__}") from exc


def _redirect(url: str, status: int, location: str) -> tuple[WebTarget, Redirect]:
    try:
        following = parse_url(urljoin(url, location))
    except UrlError as exc:
        raise FetchError(
            f"{url} redirects (HTTP {status}) to {location!r}, which cannot be fetched: {exc}"
        ) from exc
    return following, Redirect(url, status, following.url)


async def _read_capped(response: httpx.Response, url: str, max_bytes: int) -> bytes:
    over = f"The page at {url} is larger than {size_text(max_bytes)}, the most read."
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
