"""The model requests' HTTP client: the lean one (providers/lean_http.py) where it
applies, httpx where it does not.

httpx is what agentcli always used; the lean client saves its import (a third of a
one-shot run's start) for the common case. httpx is used instead, for the client's
whole life, when a proxy may apply (any of HTTP_PROXY, HTTPS_PROXY or ALL_PROXY,
in either case, set for the URL's scheme: httpx then applies them and NO_PROXY as
it always did), when the URL is one the lean client does not take (a user, a
query, a non-ASCII host, a scheme other than http(s)), and from the first redirect
on (the lean client reads the redirect and the request is sent again through
httpx, which follows it or not as configured). `AGENTCLI_HTTP_CLIENT=httpx` turns
the lean client off.
"""

from __future__ import annotations

import os
import ssl
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any, Protocol

from agentcli.providers.lean_http import LeanClient, NeedsHttpx
from agentcli.providers.retry import Timeouts

if TYPE_CHECKING:
    import httpx

SWITCH = "AGENTCLI_HTTP_CLIENT"


class StreamedResponse(Protocol):
    """What the providers read of a response, the lean client's or httpx's."""

    @property
    def status_code(self) -> int: ...

    @property
    def is_success(self) -> bool: ...

    @property
    def headers(self) -> Any: ...

    async def aread(self) -> bytes: ...

    def aiter_lines(self) -> AsyncIterator[str]: ...


def proxy_may_apply(scheme: str, env: Mapping[str, str] | None = None) -> bool:
    """Whether httpx (trusting the environment) might send a request to a `scheme` URL
    through a proxy: its variable or ALL_PROXY is set, in any case. NO_PROXY is left to
    httpx, which reads it as before."""
    env = os.environ if env is None else env
    wanted = {f"{scheme}_proxy", "all_proxy"}
    return any(value and name.lower() in wanted for name, value in env.items())


class ModelHttp:
    """Requests to one API: through the lean client while it applies, else httpx."""

    def __init__(
        self,
        base_url: str,
        headers: Mapping[str, str],
        timeouts: Timeouts,
        tls: ssl.SSLContext,
        *,
        follow_redirects: bool,
    ) -> None:
        self._base_url = base_url
        self._headers = dict(headers)
        self._timeouts = timeouts
        self._tls = tls
        self._follow_redirects = follow_redirects
        self._lean = self._lean_client()
        self._httpx: httpx.AsyncClient | None = None
        if self._lean is None:
            self.httpx_client()  # built now, as it always was: a bad proxy is found here

    @property
    def uses_httpx(self) -> bool:
        return self._lean is None

    @property
    def base_url(self) -> str:
        """The address requests go to, for messages (without a trailing slash)."""
        if self._lean is not None:
            return self._lean.origin.url
        return str(self.httpx_client().base_url).rstrip("/")

    def _lean_client(self) -> LeanClient | None:
        if os.environ.get(SWITCH, "").strip().lower() == "httpx":
            return None
        try:
            client = LeanClient(
                self._base_url,
                self._headers,
                connect_s=self._timeouts.connect_s,
                idle_s=self._timeouts.idle_s,
                tls=self._tls,
            )
        except NeedsHttpx:
            return None
        return None if proxy_may_apply(client.origin.scheme) else client

    def httpx_client(self) -> httpx.AsyncClient:
        """The httpx client with this API's settings (built on first use): the one every
        request goes through when the lean client does not apply, and for what the lean
        client does not do (a GET of the model list)."""
        if self._httpx is None:
            from agentcli.providers.httpx_lean import httpx

            self._httpx = httpx.AsyncClient(
                base_url=self._base_url,
                headers=self._headers,
                timeout=httpx.Timeout(self._timeouts.idle_s, connect=self._timeouts.connect_s),
                follow_redirects=self._follow_redirects,
                verify=self._tls,
            )
        return self._httpx

    @asynccontextmanager
    async def stream(
        self, method: str, path: str, content: bytes, headers: Mapping[str, str] | None = None
    ) -> AsyncIterator[StreamedResponse]:
        """The response to one request (`headers` on top of the client's), open while
        the block runs, closed after it."""
        lean = self._lean
        if lean is not None:
            try:
                response = await lean.open(method, path, content, headers)
            except NeedsHttpx:
                self._lean = None
                await lean.aclose()
            else:
                try:
                    yield response
                finally:
                    await response.aclose()
                return
        client = self.httpx_client()
        async with client.stream(method, path, content=content, headers=headers) as answer:
            yield answer

    async def aclose(self) -> None:
        if self._lean is not None:
            await self._lean.aclose()
        if self._httpx is not None:
            await self._httpx.aclose()
