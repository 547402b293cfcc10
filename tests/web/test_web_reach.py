"""Where a WebFetch connects: the address checked is the address reached.

A DNS name is resolved once per connection by WebFetch itself (here by a
stand-in resolver, as a DNS server would answer: the names below exist nowhere
else, so a fetch that succeeds used the checked answer), and the addresses are
put to the session's rules before anything is sent. Redirects are resolved and
checked again; a redirect to another host comes back to the model.
"""

from __future__ import annotations

import json
import ssl
import tempfile
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
import trustme

from agentcli.config.rules import parse_tool_list
from agentcli.core.abort import AbortSignal
from agentcli.engine.events import ToolCallFinished
from agentcli.permissions.policy import PermissionPolicy
from agentcli.permissions.types import PermissionMode
from agentcli.permissions.web_rules import RuleWebReach
from agentcli.providers import tls
from agentcli.tools.base import ToolContext, ToolError, ToolResult, Workspace
from agentcli.tools.display import WebFetchDisplay
from agentcli.tools.web.fetch_tool import WebFetchTool
from agentcli.tools.web.hosts import IPAddress, parse_host
from tests.engine.harness import make_engine, run_turn
from tests.engine.scripted import Response, ScriptedProvider, text, tool_use
from tests.web.site import Site, serving

NAME = "wiki.internal.test"


class FakeDns:
    """Answers for names, one list per lookup in turn (the last one repeats)."""

    def __init__(self, **answers: list[list[str]]) -> None:
        self.answers = {name.replace("_", "."): lists for name, lists in answers.items()}
        self.lookups: Counter[str] = Counter()

    async def __call__(self, name: str, port: int) -> list[IPAddress]:
        lists = self.answers.get(name)
        if lists is None:
            raise OSError(f"[Errno -2] Name or service not known: {name}")
        turn = min(self.lookups[name], len(lists) - 1)
        self.lookups[name] += 1
        return [parse_host(a).address for a in lists[turn]]  # type: ignore[misc]


def wiki(*answers: list[str]) -> FakeDns:
    return FakeDns(**{NAME.replace(".", "_"): list(answers) or [["127.0.0.1"]]})


@pytest.fixture
def authority(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[trustme.CA]:
    """A certificate authority WebFetch trusts (through SSL_CERT_FILE)."""
    ca = trustme.CA()
    bundle = tmp_path / "ca.pem"
    ca.cert_pem.write_to_path(str(bundle))
    monkeypatch.setenv("SSL_CERT_FILE", str(bundle))
    tls.forget()
    yield ca
    tls.forget()


def tls_for(ca: trustme.CA, *names: str) -> ssl.SSLContext:
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert(*names).configure_cert(context)
    return context


@pytest.fixture
def wiki_site(authority: trustme.CA) -> Iterator[Site]:
    """The test site over HTTPS with a certificate for NAME and www.NAME: `http://` to a
    name is fetched as `https://`."""
    with serving(tls_for(authority, NAME, f"www.{NAME}")) as served:
        yield served


def on_wiki(url: str) -> str:
    return url.replace("127.0.0.1", NAME)


def policy(tmp_path: Path, mode: str = "default", **rules: list[str]) -> PermissionPolicy:
    return PermissionPolicy(
        Workspace(tmp_path),
        PermissionMode(mode),
        **{kind: parse_tool_list(texts, "test") for kind, texts in rules.items()},
    )


async def fetch(tool: WebFetchTool, url: str, rules: PermissionPolicy | None = None) -> ToolResult:
    ctx = ToolContext(
        workspace=Workspace(root=Path(tempfile.gettempdir())),
        abort=AbortSignal(),
        web_reach=None if rules is None else RuleWebReach(rules),
    )
    return await tool.run(tool.input_model.model_validate({"url": url, "prompt": "?"}), ctx)


def shown(result: ToolResult) -> WebFetchDisplay:
    assert isinstance(result.display, WebFetchDisplay)
    return result.display


# -- every spelling reaches the one address, fetched by its canonical URL ------------


@pytest.mark.parametrize(
    "host", ["2130706433", "0x7f.1", "127.1", "0177.0.0.1", "[::ffff:127.0.0.1]", "127.0.0.1."]
)
async def test_a_spelling_of_an_address_is_fetched_as_the_address(site: Site, host: str):
    site.page("/p", "<p>here</p>")

    result = await fetch(WebFetchTool(), site.url("/p", host))

    assert "here" in str(result.content)
    assert shown(result).url == site.url("/p")
    assert site.hosts == [f"127.0.0.1:{site.port}"]


@pytest.mark.parametrize("host", ["localhost", "LocalHost.", "app.localhost"])
async def test_localhost_names_reach_loopback_without_a_lookup(site: Site, host: str):
    site.page("/p", "<p>local</p>")
    dns = FakeDns()

    result = await fetch(WebFetchTool(resolver=dns), site.url("/p", host))

    assert "local" in str(result.content)
    assert site.hosts == [f"{host.lower().rstrip('.')}:{site.port}"]
    assert dns.lookups == Counter()


# -- a name that resolves to a private address ----------------------------------------


async def test_without_rules_a_name_never_leads_to_a_private_address(wiki_site: Site):
    site = wiki_site
    url = on_wiki(site.page("/secret", "<p>inside</p>"))
    dns = wiki()

    with pytest.raises(ToolError, match=f"{NAME} resolves to 127.0.0.1, a loopback address"):
        await fetch(WebFetchTool(resolver=dns), url)

    assert site.hits["/secret"] == 0 and dns.lookups[NAME] == 1


@pytest.mark.parametrize(
    ("mode", "rules", "why"),
    [
        ("default", {"allow": ["WebFetch"]}, "resolves to 127.0.0.1, a loopback address"),
        ("acceptEdits", {"allow": ["WebFetch"]}, "resolves to 127.0.0.1"),
        ("plan", {"allow": ["WebFetch"]}, "resolves to 127.0.0.1"),
        ("bypassPermissions", {"deny": ["WebFetch(domain:127.0.0.1)"]}, "denied by the rule"),
        ("bypassPermissions", {"deny": ["WebFetch(domain:localhost)"]}, "denied by the rule"),
        ("bypassPermissions", {"deny": ["WebFetch(domain:0x7f000001)"]}, "denied by the rule"),
        (
            "default",
            {"allow": ["WebFetch"], "ask": ["WebFetch(domain:127.0.0.1)"]},
            "nobody can be asked in the middle of a fetch",
        ),
    ],
    ids=["broad", "accept-edits", "plan", "deny-ip", "deny-localhost", "deny-hex", "ask"],
)
async def test_a_name_that_leads_to_a_private_address_is_refused(
    wiki_site: Site, tmp_path, mode, rules, why
):
    site = wiki_site
    url = on_wiki(site.page("/secret", "<p>inside</p>"))
    provider = ScriptedProvider(
        Response([tool_use("WebFetch", {"url": url, "prompt": "?"}, "toolu_w")]),
        Response([text("ok")]),
    )
    engine = make_engine(
        provider, [WebFetchTool(resolver=wiki())], tmp_path, mode=PermissionMode(mode), **rules
    )

    events = await run_turn(engine, "read it")

    (finished,) = [e for e in events if isinstance(e, ToolCallFinished)]
    assert finished.is_error and why in json.dumps(finished.result)
    assert "inside" not in json.dumps(finished.result)
    assert site.hits["/secret"] == 0


@pytest.mark.parametrize(
    ("mode", "rules"),
    [
        ("default", {"allow": [f"WebFetch(domain:{NAME})"]}),
        ("default", {"allow": ["WebFetch(domain:*.internal.test)"]}),
        ("default", {"allow": ["WebFetch", "WebFetch(domain:127.0.0.1)"]}),
        ("bypassPermissions", {}),
    ],
    ids=["named", "wildcard", "address-named", "bypass"],
)
async def test_a_rule_naming_the_host_or_bypass_lets_a_name_reach_a_private_address(
    wiki_site: Site, tmp_path, mode, rules
):
    site = wiki_site
    url = on_wiki(site.page("/wiki", "<p>the wiki</p>"))
    dns = wiki()
    provider = ScriptedProvider(
        Response([tool_use("WebFetch", {"url": url, "prompt": "?"}, "toolu_w")]),
        Response([text("ok")]),
    )
    engine = make_engine(
        provider, [WebFetchTool(resolver=dns)], tmp_path, mode=PermissionMode(mode), **rules
    )

    events = await run_turn(engine, "read it")

    (finished,) = [e for e in events if isinstance(e, ToolCallFinished)]
    assert not finished.is_error and "the wiki" in json.dumps(finished.result)
    # The system resolver knows no such name: the connection went to the checked answer,
    # which was asked for once, and the site saw the name.
    assert dns.lookups[NAME] == 1
    assert site.hosts == [f"{NAME}:{site.port}"]


@pytest.mark.parametrize(
    "addresses",
    [
        ["8.8.8.8", "127.0.0.1"],
        ["2606:4700::1111", "::ffff:10.0.0.1"],
        ["8.8.8.8", "fd00:ec2::254"],
    ],
)
def test_one_private_answer_among_public_ones_is_enough_to_refuse(tmp_path, addresses):
    reach = RuleWebReach(policy(tmp_path, allow=["WebFetch"]))

    refusal = reach.refusal("WebFetch", NAME, NAME, addresses)

    assert refusal is not None and f"{NAME} resolves to" in refusal
    assert reach.refusal("WebFetch", NAME, NAME, ["8.8.8.8", "2606:4700::1111"]) is None


# -- redirects -----------------------------------------------------------------------


async def test_a_same_host_redirect_is_resolved_and_checked_again(wiki_site: Site, tmp_path):
    site = wiki_site
    site.page("/new", "<p>moved</p>")
    url = on_wiki(site.redirect("/old", "/new"))
    dns = wiki(["127.0.0.1"], ["10.0.0.1"])  # the name's answer changes after the first
    rules = policy(tmp_path, "bypassPermissions", deny=["WebFetch(domain:10.0.0.1)"])

    with pytest.raises(ToolError, match=r"\(at 10.0.0.1\) is denied by the rule"):
        await fetch(WebFetchTool(resolver=dns), url, rules)

    assert dns.lookups[NAME] == 2
    assert (site.hits["/old"], site.hits["/new"]) == (1, 0)


async def test_a_www_redirect_is_checked_against_the_rules_for_its_host(wiki_site: Site, tmp_path):
    site = wiki_site
    site.page("/new", "<p>moved</p>")
    url = on_wiki(site.redirect("/old", f"https://www.{NAME}:{site.port}/new"))
    dns = FakeDns(**{NAME.replace(".", "_"): [["127.0.0.1"]]})
    dns.answers[f"www.{NAME}"] = [["127.0.0.1"]]
    allowed = policy(tmp_path, allow=[f"WebFetch(domain:{NAME})"])
    denied = policy(tmp_path, "bypassPermissions", deny=[f"WebFetch(domain:www.{NAME})"])

    with pytest.raises(ToolError, match=f"www.{NAME} resolves to 127.0.0.1"):
        await fetch(WebFetchTool(resolver=dns), url, allowed)
    with pytest.raises(ToolError, match=f"www.{NAME} is denied by the rule"):
        await fetch(WebFetchTool(resolver=dns), url, denied)

    assert site.hits["/new"] == 0
    everywhere = policy(
        tmp_path, allow=[f"WebFetch(domain:{NAME})", f"WebFetch(domain:www.{NAME})"]
    )
    assert "moved" in str((await fetch(WebFetchTool(resolver=dns), url, everywhere)).content)


async def test_a_redirect_to_another_spelling_of_the_address_is_followed(site: Site):
    site.page("/new", "<p>same place</p>")
    url = site.redirect("/old", f"http://0x7f000001:{site.port}/new")

    result = await fetch(WebFetchTool(), url)

    assert "same place" in str(result.content)
    assert shown(result).url == site.url("/new")


@pytest.mark.parametrize(
    ("location", "target"),
    [
        ("http://[::1]:{port}/x", "http://[::1]:{port}/x"),
        ("http://0.0.0.0:{port}/x", "http://0.0.0.0:{port}/x"),
        ("http://LOCALHOST:{port}/x", "http://localhost:{port}/x"),
        ("http://169.254.169.254/latest/", "http://169.254.169.254/latest/"),
        ("http://127.0.0.1:1/x", "http://127.0.0.1:1/x"),  # another port
    ],
)
async def test_a_redirect_to_another_host_comes_back_as_its_canonical_url(
    site: Site, location: str, target: str
):
    url = site.redirect("/go", location.format(port=site.port))

    result = await fetch(WebFetchTool(), url)

    expected = target.format(port=site.port)
    assert not result.is_error and "not followed" in str(result.content)
    assert shown(result).redirect == expected and expected in str(result.content)
    assert site.hosts == [f"127.0.0.1:{site.port}"]


@pytest.mark.parametrize(
    "location",
    ["http://evil@127.0.0.1/", "http://127.0.0.1\\@example.com/", "http://[fe80::1%25lo]/"],
)
async def test_a_redirect_that_cannot_be_read_is_an_error(site: Site, location: str):
    url = site.redirect("/go", location)

    with pytest.raises(ToolError, match="which cannot be fetched"):
        await fetch(WebFetchTool(), url)


# -- TLS: the name is checked, the pinned address is reached ---------------------------


async def test_https_to_a_pinned_address_checks_the_certificate_for_the_name(
    authority: trustme.CA, tmp_path: Path
):
    rules = policy(tmp_path, allow=[f"WebFetch(domain:{NAME})"])
    with serving(tls_for(authority, NAME)) as site:
        url = on_wiki(site.page("/doc", "<p>over tls</p>"))

        result = await fetch(WebFetchTool(resolver=wiki()), url, rules)

        assert "over tls" in str(result.content)
        assert site.hosts == [f"{NAME}:{site.port}"]


async def test_https_to_a_pinned_address_refuses_a_certificate_for_another_name(
    authority: trustme.CA, tmp_path: Path
):
    rules = policy(tmp_path, allow=[f"WebFetch(domain:{NAME})"])
    with serving(tls_for(authority, "other.test")) as site:
        url = on_wiki(site.page("/doc", "<p>over tls</p>"))

        with pytest.raises(ToolError, match="CERTIFICATE_VERIFY_FAILED"):
            await fetch(WebFetchTool(resolver=wiki()), url, rules)

        assert site.hits["/doc"] == 0
