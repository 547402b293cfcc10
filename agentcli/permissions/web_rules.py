"""Permission for tools that reach the web by URL: rules name a domain.

`WebFetch(domain:example.com)` speaks for that host only;
`WebFetch(domain:*.example.com)` for its subdomains (not the bare domain, and
never an IP address); a bare `WebFetch` for every URL. The subject of a call
is its URL (`Tool.permission_subject`), read by tools/web/hosts.py exactly as
the fetch reads it: the rules are matched against the host the URL really
reaches, in its one canonical spelling, never against the URL's text
(`https://example.com.evil.net/` is not `example.com`; `http://2130706433/`,
`http://0x7f.1/` and `http://[::ffff:127.0.0.1]/` are `127.0.0.1`). A rule's
domain is read the same way (`domain:0x7f000001` is `domain:127.0.0.1`).

Deny and ask rules also cover the other forms that reach their host:
`localhost` and 127.0.0.1 or ::1 stand for each other, the unspecified address
(0.0.0.0, ::) for all three, and an IPv6 form that carries an IPv4 address
(IPv4-compatible, NAT64, 6to4) for that address. Allow rules are exact: an
allow rule speaks only for the host it names.

The order is the policy's (policy.py): deny, bypass mode, ask, allow, then
the default, which asks per domain. Beyond Claude Code: a URL whose host is a
loopback, private, link-local or cloud-metadata address (or `localhost`) asks
even under a bare `WebFetch` allow rule, saying why; only a `domain:` rule
that names that host lets it run unasked. A rule whose specifier is not
`domain:...`, or whose domain cannot be read, cannot be checked: as a deny or
ask rule it makes the call ask, as an allow rule it allows nothing. A URL that
cannot be read (a user name in it, a backslash, a zone id, `256.1.1.1`...) is
asked about with the reason, never allowed by a rule, and refused by the tool.

What the URL cannot say (which addresses a DNS name stands for) is judged when
the fetch connects (`RuleWebReach`): deny and ask rules against the addresses
reached, and a name that resolves to a private address is refused unless an
allow rule names that name or that address, or the mode is bypassPermissions.

Plan mode lets these tools run (they change nothing on the machine), still
behind the same question.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Sequence
from typing import Any

from agentcli.config.rules import Rule
from agentcli.permissions.session_rules import SessionRules
from agentcli.permissions.types import Decision, PermissionMode
from agentcli.tools.base import Tool
from agentcli.tools.web.hosts import Host, UrlError, address_kind, parse_host, parse_url

WEB_TOOLS = frozenset({"WebFetch"})
DOMAIN = "domain:"
PRIVATE_ASKS = "a fetch there is asked about unless a rule names that host"


def _host_of(tool: Tool, inp: Any) -> tuple[Host | None, str]:
    """The call's host, or None and why its URL cannot be read."""
    try:
        return parse_url(tool.permission_subject(inp) or "").host, ""
    except UrlError as exc:
        return None, str(exc)


def _pattern(rule: Rule) -> tuple[bool, Host] | None:
    """A `domain:` rule's host, and whether it is a `*.` wildcard; None when the rule
    is not a `domain:` rule or its domain cannot be read."""
    spec = rule.specifier or ""
    if not spec.startswith(DOMAIN):
        return None
    domain = spec[len(DOMAIN) :].strip()
    wildcard = domain.startswith("*.")
    try:
        host = parse_host(domain[2:] if wildcard else domain)
    except UrlError:
        return None
    if wildcard and host.address is not None:  # `*.0.0.1` names no domain
        return None
    return wildcard, host


def _matches(rule: Rule, host: Host | None, *, broad: bool) -> bool | None:
    """Does the rule cover this host? None when it cannot be checked.

    `broad` (deny and ask rules): also through the host's other forms (`Host.aliases`).
    """
    if rule.specifier is None:
        return True
    pattern = _pattern(rule)
    if pattern is None:
        return None
    if host is None:
        return False
    wildcard, named = pattern
    if wildcard:
        return host.address is None and host.name.endswith("." + named.name)
    if broad:
        return named.name in host.aliases() or host.name in named.aliases()
    return named.name == host.name


def _names(rule: Rule, host: Host) -> bool:
    """An allow rule that names this very host (a bare `WebFetch` names none)."""
    return rule.specifier is not None and bool(_matches(rule, host, broad=False))


def decide_web(policy: SessionRules, tool: Tool, inp: Any) -> Decision:
    name = tool.name
    host, unreadable = _host_of(tool, inp)
    for rule in policy.deny:
        if rule.applies_to(name):
            hit = _matches(rule, host, broad=True)
            if hit:
                return Decision("deny", f"denied by the rule {rule}", str(rule))
            if hit is None:
                return Decision("ask", f"the deny rule {rule} cannot be checked", str(rule))
    if policy.mode is PermissionMode.BYPASS:
        return Decision("allow", "bypassPermissions mode")
    for rule in policy.ask:
        if rule.applies_to(name) and _matches(rule, host, broad=True) is not False:
            return Decision("ask", f"the rule {rule} asks", str(rule))
    if host is None:
        return Decision("ask", f"the URL cannot be read: {unreadable}")
    private = host.private_reason()
    for rule in policy.allow:
        if not rule.applies_to(name):
            continue
        if _names(rule, host) or (private is None and _matches(rule, host, broad=False)):
            return Decision("allow", f"allowed by the rule {rule}", str(rule))
    if private is not None:
        return Decision("ask", f"{private}: {PRIVATE_ASKS}")
    return Decision("ask", f"{name} wants to fetch from {host.name}")


def suggest_domain_rules(tool: Tool, inp: Any, policy: SessionRules) -> list[Rule]:
    """ "Don't ask again" for a web tool: the call's host, in its canonical spelling."""
    host, _ = _host_of(tool, inp)
    if host is None:
        return []
    return [Rule(tool.name, f"{DOMAIN}{host.name}", base=policy.workspace.root)]


class RuleWebReach:
    """`WebReach` (tools/base.py) from the session's rules: what the permission
    question could not see, judged when the fetch connects."""

    def __init__(self, policy: SessionRules) -> None:
        self._policy = policy

    def refusal(
        self, tool_name: str, asked: str, host: str, addresses: Sequence[str]
    ) -> str | None:
        policy = self._policy
        asked_host, reached = parse_host(asked), parse_host(host)
        found = [Host.of_address(ipaddress.ip_address(a)) for a in addresses]
        deny, ask, allow = (
            [rule for rule in rules if rule.applies_to(tool_name)]
            for rules in (policy.deny, policy.ask, policy.allow)
        )
        for rule in deny:
            for each in (reached, *found):
                if _matches(rule, each, broad=True):
                    return f"{_through(reached, each)} is denied by the rule {rule}."
        if policy.mode is PermissionMode.BYPASS and not policy.locked_reason:
            return None
        for rule in ask:
            if rule.specifier is None or _matches(rule, asked_host, broad=True):
                continue  # the person was asked about this call
            for each in (reached, *found):
                if _matches(rule, each, broad=True):
                    return (
                        f"{_through(reached, each)} is asked about by the rule {rule}, and "
                        f"nobody can be asked in the middle of a fetch: fetch "
                        f"{each.url_form()} itself to be asked."
                    )
        if not reached.is_dns_name:
            return None  # its address is what the question was about
        for each in found:
            kind = address_kind(each.address) if each.address is not None else None
            if kind is None or any(_names(r, reached) or _names(r, each) for r in allow):
                continue
            return (
                f"{reached.name} resolves to {each.name}, {kind}. A name reaches such an "
                f"address only when an allow rule names it (WebFetch(domain:{reached.name})) "
                "or in bypassPermissions mode."
            )
        return None


def _through(reached: Host, address: Host) -> str:
    if address is reached or address.name == reached.name:
        return reached.name
    return f"{reached.name} (at {address.name})"


def server_tool_decision(policy: SessionRules, name: str) -> Decision:
    """May a tool the API runs itself (WebSearch) be offered to the model?

    Nobody can be asked in the middle of the API's turn, so the answer is
    taken before the request: allowed unless a deny or ask rule names the tool
    (with any specifier) or protection is uncertain. A search changes nothing
    and reaches no address the model picks; its results are read as
    untrusted text like any page's.
    """
    for rules, kind in ((policy.deny, "denied"), (policy.ask, "asked about")):
        for rule in rules:
            if rule.applies_to(name):
                return Decision("deny", f"{name} is {kind} by the rule {rule}", str(rule))
    if policy.locked_reason:
        return Decision("deny", policy.locked_reason)
    return Decision("allow", f"{name} runs on the API's side and changes nothing here")
