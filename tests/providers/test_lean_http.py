"""The model requests' own HTTP client (agentcli/providers/lean_http.py) over real loopback.

Against the fake Messages API where it can say what is needed (a stream, a status
error, a cut, a hang, TLS), and against a scripted byte-level server where the
framing itself is the point (chunk boundaries, Content-Length, a close-delimited
body, gzip, a kept-alive connection the server closed, a redirect, garbage), and
through a loopback proxy (the lean client steps aside for httpx when a proxy may
apply). What is asserted is what a person sees: the answer, or the one message.
"""

from __future__ import annotations

import asyncio
import gzip
import json
import random
import ssl
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import trustme

from agentcli.core.abort import AbortSignal
from agentcli.providers import lean_http, tls
from agentcli.providers.anthropic import AnthropicProvider
from agentcli.providers.base import ModelError, ModelRequest, ProviderEvent, Retrying, TextChunk
from agentcli.providers.lean_http import _LineSplitter
from agentcli.providers.model_http import proxy_may_apply
from agentcli.providers.openai_chat import OpenAIChatProvider
from agentcli.providers.openai_responses import OpenAIResponsesProvider
from agentcli.providers.retry import RetryPolicy, Timeouts
from tests.fakeapi import FakeAnthropic, cut_stream, hang, http_error, reply, text
from tests.fakeapi.sse import encode_event, stream_events

HELLO = ModelRequest(
    model="claude-sonnet-5-5", messages=[{"role": "user", "content": "hi"}], max_tokens=100
)
USAGE = {
    "input_tokens": 3,
    "output_tokens": 2,
    "cache_creation_input_tokens": 0,
    "cache_read_input_tokens": 0,
}
PROXY_VARIABLES = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY")


@pytest.fixture(autouse=True)
def no_proxy_nor_bundle(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    for name in (*PROXY_VARIABLES, "SSL_CERT_FILE", "SSL_CERT_DIR", "AGENTCLI_HTTP_CLIENT"):
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.lower(), raising=False)
    tls.forget()
    yield
    tls.forget()


def provider_at(base_url: str, *, retries: int = 0, idle_s: float = 120.0) -> AnthropicProvider:
    return AnthropicProvider(
        base_url=base_url,
        api_key="the-key",
        retry=RetryPolicy(max_retries=retries, base_delay_s=0.0),
        timeouts=Timeouts(connect_s=10.0, idle_s=idle_s),
    )


async def events_of(provider: AnthropicProvider) -> list[ProviderEvent]:
    try:
        return [event async for event in provider.stream(HELLO, AbortSignal())]
    finally:
        await provider.aclose()


def answer_text(events: list[ProviderEvent]) -> str:
    return "".join(event.text for event in events if isinstance(event, TextChunk))


def uses_httpx(provider: AnthropicProvider) -> bool:
    return provider._wire._client.uses_httpx


def sse_body(words: str = "Hello there!") -> bytes:
    """A whole Messages stream answering `words`, as the API frames it."""
    events = stream_events(reply(text(words)), message_id="msg_1", model=HELLO.model, usage=USAGE)
    return b"".join(encode_event(event) for event in events)


# -- a byte-level server --------------------------------------------------------------


@dataclass
class Answer:
    """What the scripted server writes for one request, and whether it then hangs up."""

    parts: list[bytes]
    close: bool = False


@dataclass
class RawServer:
    """Loopback HTTP at the byte level: each request gets the next scripted answer."""

    answers: list[Answer]
    requests: list[bytes] = field(default_factory=list)
    connections: int = 0
    server: asyncio.Server | None = None

    @property
    def base_url(self) -> str:
        assert self.server is not None
        port = self.server.sockets[0].getsockname()[1]
        return f"http://127.0.0.1:{port}"

    async def serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        try:
            while self.answers:
                head = await reader.readuntil(b"\r\n\r\n")
                length = next(
                    int(line.split(b":", 1)[1])
                    for line in head.split(b"\r\n")
                    if line.lower().startswith(b"content-length:")
                )
                self.requests.append(head + await reader.readexactly(length))
                answer = self.answers.pop(0)
                for part in answer.parts:
                    writer.write(part)
                    await writer.drain()
                if answer.close:
                    break
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()


@pytest.fixture
async def raw() -> AsyncIterator[RawServer]:
    server = RawServer([])
    server.server = await asyncio.start_server(server.serve, "127.0.0.1", 0)
    yield server
    server.server.close()


def head(status: str, *headers: str) -> bytes:
    return f"HTTP/1.1 {status}\r\n".encode() + b"".join(f"{h}\r\n".encode() for h in headers)


def chunked(data: bytes, size: int) -> list[bytes]:
    """`data` in chunks of `size` bytes, with an extension and a trailer for good measure."""
    pieces = [
        b"%x;ext=1\r\n%s\r\n" % (len(data[i : i + size]), data[i : i + size])
        for i in range(0, len(data), size)
    ]
    return [*pieces, b"0\r\nx-trailer: yes\r\n\r\n"]


SSE_HEAD = "Content-Type: text/event-stream"


# -- framing ------------------------------------------------------------------------------


async def test_a_stream_in_tiny_chunks_reads_as_one(raw: RawServer) -> None:
    body = sse_body("Hello there, in small pieces!")
    raw.answers.append(
        Answer([head("200 OK", SSE_HEAD, "Transfer-Encoding: chunked", ""), *chunked(body, 3)])
    )
    provider = provider_at(raw.base_url)

    assert not uses_httpx(provider)
    assert answer_text(await events_of(provider)) == "Hello there, in small pieces!"
    sent = raw.requests[0]
    assert sent.startswith(b"POST /v1/messages HTTP/1.1\r\n")
    assert b"\r\nauthorization: Bearer the-key\r\n" in sent
    assert json.loads(sent.split(b"\r\n\r\n", 1)[1])["stream"] is True


async def test_a_content_length_body_and_a_close_delimited_one(raw: RawServer) -> None:
    body = sse_body("framed by its length")
    raw.answers.append(Answer([head("200 OK", SSE_HEAD, f"Content-Length: {len(body)}", ""), body]))
    assert answer_text(await events_of(provider_at(raw.base_url))) == "framed by its length"

    body = sse_body("framed by the close")
    raw.answers.append(
        Answer([head("200 OK", SSE_HEAD, "Connection: close", ""), body], close=True)
    )
    assert answer_text(await events_of(provider_at(raw.base_url))) == "framed by the close"


async def test_a_gzipped_error_body_gives_the_api_message(raw: RawServer) -> None:
    error = {"type": "error", "error": {"type": "invalid_request_error", "message": "bad model"}}
    data = gzip.compress(json.dumps(error).encode())
    raw.answers.append(
        Answer(
            [
                head(
                    "400 Bad Request",
                    "Content-Type: application/json",
                    "Content-Encoding: gzip",
                    f"Content-Length: {len(data)}",
                    "",
                ),
                data,
            ]
        )
    )

    with pytest.raises(ModelError) as raised:
        await events_of(provider_at(raw.base_url))

    assert raised.value.message == "API Error 400: bad model"
    assert raised.value.status == 400


async def test_a_status_error_with_a_json_body_is_worded_from_it(fake_api: FakeAnthropic) -> None:
    fake_api.enqueue(http_error(403, "your key may not use this model"))

    with pytest.raises(ModelError) as raised:
        await events_of(provider_at(fake_api.base_url, retries=3))

    assert raised.value.message == "API Error 403: your key may not use this model"
    assert len(fake_api.requests) == 1  # a client error is final


async def test_requests_share_one_connection_while_the_server_keeps_it(raw: RawServer) -> None:
    for words in ("one", "two"):
        body = sse_body(words)
        raw.answers.append(
            Answer([head("200 OK", SSE_HEAD, "Transfer-Encoding: chunked", ""), *chunked(body, 50)])
        )
    provider = provider_at(raw.base_url)
    try:
        first = [e async for e in provider.stream(HELLO, AbortSignal())]
        second = [e async for e in provider.stream(HELLO, AbortSignal())]
    finally:
        await provider.aclose()

    assert (answer_text(first), answer_text(second)) == ("one", "two")
    assert raw.connections == 1


async def test_a_kept_connection_the_server_closed_is_replaced_without_a_retry(
    raw: RawServer,
) -> None:
    """The server hangs up after a whole keep-alive answer (as an idle timeout does):
    the next request goes out on a new connection, no failure reported."""
    for words in ("one", "two"):
        body = sse_body(words)
        raw.answers.append(
            Answer([head("200 OK", SSE_HEAD, f"Content-Length: {len(body)}", ""), body], close=True)
        )
    provider = provider_at(raw.base_url, retries=0)
    try:
        first = [e async for e in provider.stream(HELLO, AbortSignal())]
        await asyncio.sleep(0)  # let the close arrive, or not: both must work
        second = [e async for e in provider.stream(HELLO, AbortSignal())]
    finally:
        await provider.aclose()

    assert (answer_text(first), answer_text(second)) == ("one", "two")
    assert not [e for e in first + second if isinstance(e, Retrying)]
    assert raw.connections == 2


async def test_a_connection_idle_past_the_expiry_is_not_used(
    raw: RawServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A kept connection is used again only within httpx's keep-alive expiry: one a
    middlebox dropped in silence would hang the next request until the idle timeout."""
    monkeypatch.setattr(lean_http, "KEEPALIVE_EXPIRY_S", 0.0)
    for words in ("one", "two"):
        body = sse_body(words)
        raw.answers.append(
            Answer([head("200 OK", SSE_HEAD, f"Content-Length: {len(body)}", ""), body])
        )
    provider = provider_at(raw.base_url)
    try:
        first = [e async for e in provider.stream(HELLO, AbortSignal())]
        second = [e async for e in provider.stream(HELLO, AbortSignal())]
    finally:
        await provider.aclose()

    assert (answer_text(first), answer_text(second)) == ("one", "two")
    assert raw.connections == 2


# -- failures -----------------------------------------------------------------------------


async def test_a_stream_cut_midway_says_so_and_is_not_replayed(fake_api: FakeAnthropic) -> None:
    fake_api.enqueue(cut_stream(reply(text("a long answer " * 20))))

    with pytest.raises(ModelError) as raised:
        await events_of(provider_at(fake_api.base_url, retries=3))

    assert raised.value.message == (
        "the connection closed before the response was complete: the response was cut off"
        " midway (not retried, since part of it had already arrived)"
    )
    assert len(fake_api.requests) == 1


async def test_a_reset_midway_is_named_a_reset(fake_api: FakeAnthropic) -> None:
    fake_api.enqueue(cut_stream(reply(text("a long answer " * 20)), reset=True))

    with pytest.raises(ModelError, match=r"^connection reset: the response was cut off midway"):
        await events_of(provider_at(fake_api.base_url, retries=3))


async def test_a_close_before_any_answer_is_retried(raw: RawServer) -> None:
    body = sse_body("second time lucky")
    raw.answers.append(Answer([], close=True))
    raw.answers.append(Answer([head("200 OK", SSE_HEAD, f"Content-Length: {len(body)}", ""), body]))

    events = await events_of(provider_at(raw.base_url, retries=2))

    retries = [e for e in events if isinstance(e, Retrying)]
    assert [r.error for r in retries] == ["the connection closed before the response was complete"]
    assert answer_text(events) == "second time lucky"


async def test_a_server_silent_past_the_idle_timeout_is_abandoned(
    fake_api: FakeAnthropic,
) -> None:
    stalled = hang(reply(text("never")), after_events=2)
    fake_api.enqueue(stalled)
    try:
        with pytest.raises(ModelError) as raised:
            await events_of(provider_at(fake_api.base_url, idle_s=0.3))
    finally:
        stalled.gate.release()

    assert raised.value.message.startswith("no response for 0.3 s")


async def test_a_tls_handshake_never_answered_is_a_connect_timeout() -> None:
    async def silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.read()  # says nothing back
        writer.close()

    server = await asyncio.start_server(silent, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    provider = AnthropicProvider(
        base_url=f"https://127.0.0.1:{port}",
        api_key="k",
        retry=RetryPolicy(max_retries=0),
        timeouts=Timeouts(connect_s=0.2, idle_s=120.0),
    )
    try:
        with pytest.raises(ModelError, match=r"^no connection within 0\.2 s"):
            await events_of(provider)
    finally:
        server.close()


@pytest.mark.parametrize(
    "garbage",
    [
        b"SSH-2.0-OpenSSH_9.6\r\n",
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\nxx",
        b"HTTP/1.1 200 OK\r\nContent-Length: many\r\n\r\n",
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
    ],
)
async def test_what_is_not_http_is_one_message_not_a_traceback(
    raw: RawServer, garbage: bytes
) -> None:
    raw.answers.append(Answer([garbage], close=True))

    with pytest.raises(ModelError) as raised:
        await events_of(provider_at(raw.base_url))

    assert raised.value.message.startswith("the connection closed before the response was")


# -- TLS, redirects, proxies ---------------------------------------------------------------


@pytest.fixture
def https_server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeAnthropic]:
    """The fake API over TLS, its authority trusted through SSL_CERT_FILE."""
    authority = trustme.CA()
    served = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    authority.issue_cert("127.0.0.1").configure_cert(served)
    bundle = tmp_path / "ca.pem"
    authority.cert_pem.write_to_path(str(bundle))
    monkeypatch.setenv("SSL_CERT_FILE", str(bundle))
    with FakeAnthropic(default=reply(text("over TLS")), tls=served) as server:
        yield server


async def test_tls_with_the_prepared_context_and_a_kept_connection(
    https_server: FakeAnthropic,
) -> None:
    provider = provider_at(https_server.base_url)
    assert not uses_httpx(provider)
    try:
        first = [e async for e in provider.stream(HELLO, AbortSignal())]
        second = [e async for e in provider.stream(HELLO, AbortSignal())]
    finally:
        await provider.aclose()

    assert answer_text(first) == answer_text(second) == "over TLS"
    assert https_server.requests[0].headers["authorization"] == "Bearer the-key"


async def test_a_redirect_is_followed_through_httpx(
    raw: RawServer, fake_api: FakeAnthropic
) -> None:
    """The lean client reads the redirect and hands the request to httpx, which sends
    it again and follows the redirect as it always did (here: 307, the body kept)."""
    fake_api.enqueue(reply(text("after the redirect")))
    moved = head(
        "307 Temporary Redirect",
        f"Location: {fake_api.base_url}/v1/messages",
        "Content-Length: 0",
        "",
    )
    raw.answers += [Answer([moved]), Answer([moved])]
    provider = provider_at(raw.base_url)

    assert answer_text(await events_of(provider)) == "after the redirect"
    assert uses_httpx(provider)  # from the first redirect on
    assert len(raw.requests) == 2
    assert fake_api.requests[0].body["messages"] == HELLO.messages


@dataclass
class Proxy:
    """A loopback forward proxy: plain requests are passed on, CONNECT is tunnelled."""

    seen: list[str] = field(default_factory=list)
    server: asyncio.Server | None = None

    @property
    def url(self) -> str:
        assert self.server is not None
        return f"http://127.0.0.1:{self.server.sockets[0].getsockname()[1]}"

    async def serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        first = await reader.readuntil(b"\r\n\r\n")
        line = first.split(b"\r\n", 1)[0].decode()
        self.seen.append(line)
        method, target, _ = line.split(" ")
        if method == "CONNECT":
            host, port = target.rsplit(":", 1)
            up_reader, up_writer = await asyncio.open_connection(host, int(port))
            writer.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
        else:
            host_port = target.split("//", 1)[1].split("/", 1)[0]
            host, port = host_port.rsplit(":", 1)
            up_reader, up_writer = await asyncio.open_connection(host, int(port))
            up_writer.write(first)
        await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))


async def pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    except ConnectionError:
        pass
    finally:
        writer.close()


@pytest.fixture
async def proxy() -> AsyncIterator[Proxy]:
    made = Proxy()
    made.server = await asyncio.start_server(made.serve, "127.0.0.1", 0)
    yield made
    made.server.close()


@pytest.mark.parametrize("variable", ["HTTP_PROXY", "http_proxy", "ALL_PROXY"])
async def test_a_proxy_in_the_environment_carries_the_request(
    fake_api: FakeAnthropic, proxy: Proxy, monkeypatch: pytest.MonkeyPatch, variable: str
) -> None:
    monkeypatch.setenv(variable, proxy.url)
    fake_api.enqueue(reply(text("through the proxy")))
    provider = provider_at(fake_api.base_url)

    assert uses_httpx(provider)
    assert answer_text(await events_of(provider)) == "through the proxy"
    assert proxy.seen == [f"POST {fake_api.base_url}/v1/messages HTTP/1.1"]


async def test_no_proxy_sends_the_request_direct(
    fake_api: FakeAnthropic, proxy: Proxy, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HTTP_PROXY", proxy.url)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    fake_api.enqueue(reply(text("direct")))

    assert answer_text(await events_of(provider_at(fake_api.base_url))) == "direct"
    assert proxy.seen == []


async def test_an_https_proxy_tunnels_with_connect(
    https_server: FakeAnthropic, proxy: Proxy, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HTTPS_PROXY", proxy.url)
    monkeypatch.setenv("HTTP_PROXY", "")  # only the scheme's own variable counts

    assert answer_text(await events_of(provider_at(https_server.base_url))) == "over TLS"
    host_port = https_server.base_url.split("//", 1)[1]
    assert proxy.seen == [f"CONNECT {host_port} HTTP/1.1"]


def test_which_variables_mean_a_proxy_may_apply() -> None:
    assert proxy_may_apply("https", {"HTTPS_PROXY": "http://p:1"})
    assert proxy_may_apply("https", {"all_proxy": "socks5://p:1"})
    assert proxy_may_apply("http", {"Http_Proxy": "p:1"})
    assert not proxy_may_apply("https", {"HTTP_PROXY": "http://p:1"})
    assert not proxy_may_apply("https", {"HTTPS_PROXY": "", "NO_PROXY": "*"})


# -- lines ----------------------------------------------------------------------------------


def test_lines_split_anywhere_are_the_lines_of_the_whole() -> None:
    """Fed in pieces cut at random, the splitter gives `str.splitlines` of the whole, as
    httpx's `aiter_lines` does: `\\r\\n` across two pieces is one ending."""
    chooser = random.Random(24)
    alphabet = ["a", "b", "\n", "\r", "\r\n", "\x85", " ", "data: {}", "\u2028"]
    for _ in range(500):
        whole = "".join(chooser.choice(alphabet) for _ in range(chooser.randint(0, 30)))
        cuts = sorted(chooser.sample(range(len(whole) + 1), min(len(whole) + 1, 4)))
        pieces = [whole[a:b] for a, b in zip([0, *cuts], [*cuts, len(whole)], strict=True)]
        splitter = _LineSplitter()
        lines = [line for piece in pieces for line in splitter.feed(piece)] + splitter.flush()
        assert lines == whole.splitlines(), (whole, pieces)


# -- the OpenAI providers -------------------------------------------------------------------


@pytest.mark.parametrize("kind", [OpenAIChatProvider, OpenAIResponsesProvider])
async def test_an_openai_request_goes_over_the_lean_client_as_httpx_sent_it(
    fake_openai, kind: type[OpenAIChatProvider] | type[OpenAIResponsesProvider]
) -> None:
    """The body is httpx's `json=` encoding byte for byte (compact, not ASCII-escaped),
    with its Content-Type; the answer streams as before."""
    fake_openai.enqueue(reply(text("Grüße!")))
    provider = kind(base_url=fake_openai.base_url, api_key="key", retry=RetryPolicy(max_retries=0))
    request = ModelRequest(
        model="qwen3-coder",
        messages=[{"role": "user", "content": [{"type": "text", "text": "Grüß"}]}],
    )
    try:
        assert not provider.http._client.uses_httpx
        events = [event async for event in provider.stream(request, AbortSignal())]
    finally:
        await provider.aclose()

    assert answer_text(events) == "Grüße!"
    sent = fake_openai.requests[0]
    assert sent.headers["content-type"] == "application/json"
    assert sent.headers["authorization"] == "Bearer key"
    expected = json.dumps(sent.body, ensure_ascii=False, separators=(",", ":")).encode()
    assert sent.raw_body == expected


def test_a_connection_kept_on_a_finished_event_loop_is_not_used_on_the_next() -> None:
    """A front end may run one event loop after another with the same provider: the
    connection the first loop kept is closed, not used, on the second."""
    fake = FakeAnthropic(default=reply(text("again"))).start()
    provider = provider_at(fake.base_url)

    async def ask() -> str:
        return answer_text([event async for event in provider.stream(HELLO, AbortSignal())])

    try:
        assert asyncio.run(ask()) == "again"
        assert asyncio.run(ask()) == "again"
        asyncio.run(provider.aclose())
    finally:
        fake.stop()
    assert len(fake.requests) == 2
