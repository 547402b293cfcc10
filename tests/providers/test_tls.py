"""The TLS context made while agentcli starts (agentcli/providers/tls.py): the one
httpx would make, honouring SSL_CERT_FILE even when set after it was prepared, and
used for real by the provider against an HTTPS server."""

from __future__ import annotations

import ssl
from collections.abc import Iterator
from pathlib import Path

import pytest
import trustme

from agentcli.core.abort import AbortSignal
from agentcli.providers import tls
from agentcli.providers.anthropic import AnthropicProvider
from agentcli.providers.base import ModelError, ModelRequest, TextChunk
from agentcli.providers.httpx_lean import httpx
from agentcli.providers.retry import RetryPolicy
from tests.fakeapi import FakeAnthropic, reply, text

HELLO = ModelRequest(
    model="claude-sonnet-5-5", messages=[{"role": "user", "content": "hi"}], max_tokens=100
)


@pytest.fixture(autouse=True)
def fresh(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    monkeypatch.delenv("SSL_CERT_DIR", raising=False)
    tls.forget()
    yield
    tls.forget()


@pytest.fixture
def https_server() -> Iterator[tuple[FakeAnthropic, trustme.CA]]:
    authority = trustme.CA()
    served = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    authority.issue_cert("127.0.0.1").configure_cert(served)
    with FakeAnthropic(default=reply(text("over TLS")), tls=served) as server:
        yield server, authority


async def answer(server: FakeAnthropic) -> str:
    provider = AnthropicProvider(
        base_url=server.base_url, api_key="the-key", retry=RetryPolicy(max_retries=0)
    )
    try:
        events = [event async for event in provider.stream(HELLO, AbortSignal())]
    finally:
        await provider.aclose()
    return "".join(event.text for event in events if isinstance(event, TextChunk))


def test_the_prepared_context_is_the_one_httpx_makes() -> None:
    tls.prepare()
    ours, httpxs = tls.context(), httpx.create_ssl_context()
    assert ours.verify_mode == httpxs.verify_mode == ssl.CERT_REQUIRED
    assert ours.check_hostname and httpxs.check_hostname
    assert ours.cert_store_stats() == httpxs.cert_store_stats()
    assert ours.cert_store_stats()["x509_ca"] > 50  # certifi's bundle was loaded
    assert (ours.options, ours.minimum_version) == (httpxs.options, httpxs.minimum_version)
    assert tls.context() is ours  # made once, shared by the clients


async def test_a_server_whose_authority_is_in_ssl_cert_file_is_trusted(
    https_server: tuple[FakeAnthropic, trustme.CA],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    server, authority = https_server
    tls.prepare()  # before the variable is set, as a settings file's `env` sets it later
    bundle = tmp_path / "company-ca.pem"
    authority.cert_pem.write_to_path(str(bundle))
    monkeypatch.setenv("SSL_CERT_FILE", str(bundle))
    assert await answer(server) == "over TLS"
    assert server.requests[0].headers["authorization"] == "Bearer the-key"


async def test_an_unknown_authority_is_refused(
    https_server: tuple[FakeAnthropic, trustme.CA],
) -> None:
    server, _ = https_server
    tls.prepare()  # certifi's bundle: this test authority is not in it
    with pytest.raises(ModelError, match=r"TLS failed \(CERTIFICATE_VERIFY_FAILED\)"):
        await answer(server)
    assert server.requests == []


def test_a_missing_bundle_is_reported_when_the_context_is_taken(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SSL_CERT_FILE", str(tmp_path / "missing.pem"))
    tls.prepare()  # the thread's error waits for whoever takes the context
    with pytest.raises(FileNotFoundError):
        tls.context()
    with pytest.raises(FileNotFoundError):
        AnthropicProvider(base_url="https://127.0.0.1:9", api_key="k")
