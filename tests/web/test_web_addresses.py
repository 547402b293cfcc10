"""WebFetch's permission judges the host a URL really reaches, not the URL's text.

Every spelling the resolver or the HTTP client would turn into the same address
is that address to the rules; a URL whose host cannot be read as one address or
name is refused outright; and a loopback, private, link-local or metadata
address is asked about in every mode but bypassPermissions, even under a bare
`WebFetch` allow rule, unless a rule names that host.
"""

from __future__ import annotations

import ipaddress
import socket
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentcli.config.rules import parse_tool_list
from agentcli.permissions.gate import PermissionGate, headless_answer
from agentcli.permissions.policy import PermissionPolicy
from agentcli.permissions.types import Decision, PermissionMode
from agentcli.tools.base import ToolError
from agentcli.tools.web.fetch_tool import WebFetchTool
from agentcli.tools.web.fetching import checked_url
from agentcli.tools.web.hosts import UrlError, parse_url
from tests.web.test_web_fetch import fetch

LOOPBACK_SPELLINGS = [
    "http://127.0.0.1/",
    "http://2130706433/",  # one decimal number
    "http://0x7f000001/",  # one hex number
    "http://0X7F000001/",
    "http://0x7f.1/",  # hex, short form
    "http://127.1/",  # short form
    "http://127.0.1/",
    "http://0177.0.0.1/",  # octal
    "http://0177.1/",
    "http://017700000001/",
    "http://127.000.000.001/",
    "http://127.0.0.1./",  # trailing dot
    "http://[::ffff:127.0.0.1]/",  # IPv4-mapped IPv6
    "http://[::FFFF:7f00:1]/",
    "http://[0:0:0:0:0:ffff:127.0.0.1]/",
    "http://\uff11\uff12\uff17\uff0e\uff10\uff0e\uff10\uff0e\uff11/",  # fullwidth, IDNA-mapped
    "http://127\u30020\u30020\u30021/",  # ideographic full stops
    "http://127.0.0.1:8080/",
    "http://127.0.0.1#@example.com/",  # the fragment is not the host
    "http://127.0.0.1/?@example.com",
]


def policy(tmp_path: Path, mode: str = "default", **rules: list[str]) -> PermissionPolicy:
    return PermissionPolicy(
        _workspace(tmp_path),
        PermissionMode(mode),
        **{kind: parse_tool_list(texts, "test") for kind, texts in rules.items()},
    )


def _workspace(tmp_path: Path):
    from agentcli.tools.base import Workspace

    return Workspace(tmp_path)


def decision(tmp_path: Path, url: str, mode: str = "default", **rules: list[str]) -> Decision:
    tool = WebFetchTool()
    inp = tool.input_model.model_validate({"url": url, "prompt": "?"})
    return policy(tmp_path, mode, **rules).decide(tool, inp)


def decide(tmp_path: Path, url: str, mode: str = "default", **rules: list[str]) -> str:
    return decision(tmp_path, url, mode, **rules).behavior


# -- every spelling of an address is that address ----------------------------------


@pytest.mark.parametrize("url", LOOPBACK_SPELLINGS)
def test_a_deny_rule_for_an_address_covers_every_spelling_of_it(tmp_path, url):
    deny = ["WebFetch(domain:127.0.0.1)"]

    assert decide(tmp_path, url, allow=["WebFetch"], deny=deny) == "deny"
    assert decide(tmp_path, url, "bypassPermissions", deny=deny) == "deny"


@pytest.mark.parametrize("url", LOOPBACK_SPELLINGS)
def test_every_spelling_of_an_address_is_fetched_as_the_address(url):
    checked = checked_url(url)

    assert checked.startswith(("http://127.0.0.1/", "http://127.0.0.1:8080/"))


def _numeric_reading(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """The address the system resolver reads in `host` without a DNS lookup."""
    try:
        found = socket.getaddrinfo(host.encode(), 80, flags=socket.AI_NUMERICHOST)
    except (socket.gaierror, UnicodeError):
        return None
    return ipaddress.ip_address(found[0][4][0])


@settings(max_examples=1000, deadline=None)
@given(st.text(alphabet="0123456789abcdefxX.", min_size=1, max_size=16))
def test_whatever_the_resolver_reads_as_an_address_is_read_as_that_address(host):
    """No host is a name to the rules and an address to the resolver, or another address."""
    resolver = _numeric_reading(host)
    try:
        ours = parse_url(f"http://{host}/").host
    except UrlError:
        return  # refused: nothing is fetched
    if resolver is not None:
        assert ours.address == resolver, host
    elif ours.address is not None:  # only a trailing dot, which the resolver would look up
        assert host.endswith(".") and _numeric_reading(host[:-1]) == ours.address, host


@pytest.mark.parametrize(
    "rule",
    [
        "WebFetch(domain:0x7f000001)",
        "WebFetch(domain:127.1)",
        "WebFetch(domain:[::ffff:127.0.0.1])",
        "WebFetch(domain:::ffff:7f00:1)",
        "WebFetch(domain:127.0.0.1.)",
    ],
)
def test_a_rule_is_read_the_same_way_as_a_url(tmp_path, rule):
    assert decide(tmp_path, "http://127.0.0.1/", allow=["WebFetch"], deny=[rule]) == "deny"
    assert decide(tmp_path, "http://127.0.0.1:9/", allow=[rule]) == "allow"


@pytest.mark.parametrize(
    ("url", "rule"),
    [
        ("http://localhost/", "WebFetch(domain:127.0.0.1)"),  # localhost is 127.0.0.1 and ::1
        ("http://LocalHost./", "WebFetch(domain:::1)"),
        ("http://127.0.0.1/", "WebFetch(domain:localhost)"),
        ("http://[::1]/", "WebFetch(domain:localhost)"),
        ("http://[::127.0.0.1]/", "WebFetch(domain:127.0.0.1)"),  # IPv4-compatible
        ("http://[64:ff9b::127.0.0.1]/", "WebFetch(domain:127.0.0.1)"),  # NAT64
        ("http://[2002:7f00:1::]/", "WebFetch(domain:127.0.0.1)"),  # 6to4
        ("http://[::ffff:a9fe:a9fe]/", "WebFetch(domain:169.254.169.254)"),
        ("https://B\u00fccher.example/", "WebFetch(domain:xn--bcher-kva.example)"),  # IDNA
        ("https://xn--bcher-kva.example/", "WebFetch(domain:b\u00fccher.example)"),
        ("https://\u24d4\u24e7\u24d0\u24dc\u24df\u24db\u24d4.com/", "WebFetch(domain:example.com)"),
    ],
)
def test_a_deny_rule_covers_the_other_forms_that_reach_its_host(tmp_path, url, rule):
    assert decide(tmp_path, url, allow=["WebFetch"], deny=[rule]) == "deny"


# -- what cannot be read as one host is refused ------------------------------------


@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("http://evil@127.0.0.1/", "user name or password"),
        ("http://@127.0.0.1/", "user name or password"),
        ("http://:@127.0.0.1/", "user name or password"),
        ("http://example.com:80@127.0.0.1/", "user name or password"),
        ("http://127.0.0.1\\@example.com/", "backslash"),
        ("http://example.com\\.127.0.0.1/", "backslash"),
        ("http://%31%32%37.0.0.1/", "percent"),
        ("http://127.0.0.1%2f@example.com/", "percent"),
        ("http://[fe80::1%25eth0]/", "percent"),
        ("http://[v1.fe80::1]/", "IPv6"),
        ("http://[::1/", "Invalid URL"),
        ("http://256.0.0.1/", "IPv4"),
        ("http://1.2.3.4.5/", "IPv4"),
        ("http://08.0.0.1/", "IPv4"),
        ("http://0x100000000/", "IPv4"),
        ("http://4294967296/", "IPv4"),
        ("http://0x/", "IPv4"),
        ("http://example.123/", "IPv4"),
        ("http://127.0.0.1../", "host"),
        ("http://exa$mple.com/", "host"),
        ("http://a..b/", "host"),
        ("http://127.0.0.1 /", "space or control"),
        ("http://127.0.0.1\t.evil.com/", "space or control"),
        ("http://exam\nple.com/", "space or control"),
        ("http://127.0.0.1:+80/", "port"),
        ("http://127.0.0.1:0x50/", "port"),
        ("http://127.0.0.1:99999/", "port"),
        ("http://\u2488.0.0.1/", "host"),  # a digit-and-dot sign that IDNA refuses
    ],
)
async def test_a_host_that_cannot_be_read_as_one_address_is_refused(tmp_path, url, why):
    with pytest.raises(ToolError, match=why):
        await fetch(WebFetchTool(), url)
    assert decide(tmp_path, url, allow=["WebFetch"]) == "ask"
    assert decide(tmp_path, url, allow=["WebFetch(domain:127.0.0.1)"]) == "ask"


def test_a_url_that_cannot_be_read_is_asked_about_with_the_reason(tmp_path):
    found = decision(tmp_path, "http://evil@127.0.0.1/", allow=["WebFetch"])

    assert found.behavior == "ask"
    assert "user name or password" in found.reason


# -- private addresses ask unless a rule names them ---------------------------------

PRIVATE = [
    ("http://127.0.0.1:8000/", "loopback"),
    ("http://127.5.6.7/", "loopback"),
    ("http://2130706433/", "loopback"),
    ("http://[::1]/", "loopback"),
    ("http://[::ffff:127.0.0.1]/", "loopback"),
    ("http://localhost:3000/", "loopback"),
    ("http://LOCALHOST./", "loopback"),
    ("http://app.localhost/", "loopback"),
    ("http://0.0.0.0/", "unspecified"),
    ("http://0/", "unspecified"),
    ("http://[::]/", "unspecified"),
    ("https://10.1.2.3/", "private network"),
    ("https://172.16.0.1/", "private network"),
    ("https://172.31.255.254/", "private network"),
    ("https://192.168.1.10/", "private network"),
    ("https://3232235786/", "private network"),  # 192.168.1.10
    ("https://100.64.0.1/", "private network"),  # shared address space (carrier NAT)
    ("https://[fc00::1]/", "private network"),
    ("https://[fd12:3456::1]/", "private network"),
    ("http://169.254.169.254/latest/meta-data/", "cloud metadata"),
    ("http://0xa9fea9fe/", "cloud metadata"),
    ("http://[::ffff:169.254.169.254]/", "cloud metadata"),
    ("http://[fd00:ec2::254]/", "cloud metadata"),
    ("http://100.100.100.200/", "cloud metadata"),
    ("http://169.254.1.1/", "link-local"),
    ("http://[fe80::1]/", "link-local"),
    ("http://[::127.0.0.1]/", "IPv4-compatible"),
    ("http://[64:ff9b::a00:1]/", "private network"),  # NAT64 of 10.0.0.1
    ("http://[2002:c0a8:10a::]/", "private network"),  # 6to4 of 192.168.1.10
    ("http://224.0.0.1/", "not a public address"),  # multicast
    ("http://255.255.255.255/", "not a public address"),
    ("http://240.0.0.1/", "not a public address"),
    ("http://192.0.2.1/", "not a public address"),  # documentation
    ("http://[2001:db8::1]/", "not a public address"),
    ("http://[ff02::1]/", "not a public address"),
    ("http://[2001::1]/", "not a public address"),  # Teredo
]


@pytest.mark.parametrize(("url", "kind"), PRIVATE)
def test_a_private_address_asks_even_under_a_broad_allow_rule(tmp_path, url, kind):
    for mode in ("default", "acceptEdits", "plan"):
        found = decision(tmp_path, url, mode, allow=["WebFetch"])
        assert found.behavior == "ask", (url, mode)
        assert kind in found.reason
    assert decide(tmp_path, url, "bypassPermissions") == "allow"


@pytest.mark.parametrize(
    ("url", "rule"),
    [
        ("http://localhost:3000/", "WebFetch(domain:localhost)"),
        ("http://LOCALHOST./x", "WebFetch(domain:localhost)"),
        ("http://127.0.0.1:8000/", "WebFetch(domain:127.0.0.1)"),
        ("http://127.1:8000/", "WebFetch(domain:127.0.0.1)"),
        ("https://192.168.1.10/", "WebFetch(domain:192.168.1.10)"),
        ("http://[::1]:8000/", "WebFetch(domain:::1)"),
        ("http://[::1]:8000/", "WebFetch(domain:[::1])"),
        ("http://169.254.169.254/", "WebFetch(domain:169.254.169.254)"),
        ("http://app.localhost/", "WebFetch(domain:*.localhost)"),
    ],
)
def test_a_rule_that_names_the_private_host_lets_it_run(tmp_path, url, rule):
    assert decide(tmp_path, url, allow=[rule]) == "allow"
    assert decide(tmp_path, url, allow=["WebFetch", rule]) == "allow"


@pytest.mark.parametrize(
    ("url", "rule"),
    [
        ("http://127.0.0.1/", "WebFetch(domain:localhost)"),  # allow rules are exact
        ("http://localhost/", "WebFetch(domain:127.0.0.1)"),
        ("http://127.0.0.2/", "WebFetch(domain:127.0.0.1)"),
        ("http://127.0.0.1/", "WebFetch(domain:*.0.0.1)"),  # a wildcard names domains only
        ("http://127.0.0.1/", "WebFetch(domain:*.1)"),
        ("http://[64:ff9b::7f00:1]/", "WebFetch(domain:127.0.0.1)"),
        ("http://localhost/", "WebFetch(domain:*.localhost)"),
    ],
)
def test_a_rule_for_another_host_does_not_let_a_private_one_run(tmp_path, url, rule):
    assert decide(tmp_path, url, allow=[rule]) == "ask"


@pytest.mark.parametrize(
    "url",
    ["https://8.8.8.8/", "https://134744072/", "https://[2606:4700:4700::1111]/",
     "https://[64:ff9b::808:808]/", "https://172.32.0.1/", "https://example.com/"],
)  # fmt: skip
def test_a_public_address_is_allowed_by_a_broad_rule(tmp_path, url):
    assert decide(tmp_path, url, allow=["WebFetch"]) == "allow"


async def test_the_question_says_the_address_is_private_and_offers_its_canonical_host(tmp_path):
    tool = WebFetchTool()
    inp = tool.input_model.model_validate({"url": "http://0x7f.1:8000/", "prompt": "?"})
    gate = PermissionGate(policy(tmp_path, allow=["WebFetch"]), remember=lambda rules: None)
    found = gate.decide(tool, inp)

    question = gate.question(tool, inp, "toolu_1", found.reason, None)

    assert question.request.rules == ("WebFetch(domain:127.0.0.1)",)
    assert "127.0.0.1 is a loopback address" in question.request.reason
    refused = headless_answer(question.request)
    assert refused.feedback is not None and "127.0.0.1 is a loopback address" in refused.feedback


async def test_dont_ask_again_names_an_international_domain_as_dns_does(tmp_path):
    tool = WebFetchTool()
    inp = tool.input_model.model_validate({"url": "https://B\u00dccher.example/", "prompt": "?"})
    gate = PermissionGate(policy(tmp_path), remember=lambda rules: None)

    question = gate.question(tool, inp, "toolu_1", "asks", None)

    assert question.request.rules == ("WebFetch(domain:xn--bcher-kva.example)",)
