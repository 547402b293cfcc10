"""Permission for tools that reach the web by URL: rules name a domain.

`WebFetch(domain:example.com)` speaks for that host only;
`WebFetch(domain:*.example.com)` for its subdomains (not the bare domain);
a bare `WebFetch` for every URL. The subject of a call is its URL
(`Tool.permission_subject`), and the host is what a rule is matched
against, so `https://example.com.evil.net/` is not `example.com`.

The order is the policy's (policy.py): deny, bypass mode, ask, allow, then
the default, which asks per domain (loopback addresses included: a local
server is reached only when the person says so). A rule whose specifier is
not `domain:...` cannot be checked: as a deny or ask rule it makes the call
ask, as an allow rule it allows nothing. A URL whose host cannot be read is
asked about, never allowed by a domain rule.

Plan mode lets these tools run (they change nothing on the machine), still
behind the same question.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from agentcli.config.rules import Rule
from agentcli.permissions.types import Decision, PermissionMode
from agentcli.tools.base import Tool

if TYPE_CHECKING:
    from agentcli.permissions.policy import PermissionPolicy

WEB_TOOLS = frozenset({"WebFetch"})
DOMAIN = "domain:"


def host_of(url: str) -> str | None:
    """The URL's host, lower case, without a trailing dot; None when there is none."""
    try:
        host = urlsplit(url.strip()).hostname
    except ValueError:
        return None
    host = (host or "").rstrip(".")
    return host or None


def _matches(rule: Rule, host: str | None) -> bool | None:
    """True or False; None when the rule cannot be checked (not a `domain:` rule)."""
    spec = rule.specifier
    if spec is None:
        return True
    if not spec.startswith(DOMAIN):
        return None
    domain = spec[len(DOMAIN) :].strip().lower().rstrip(".")
    if host is None or not domain:
        return False
    if domain.startswith("*."):
        return host.endswith(domain[1:])
    return host == domain


def decide_web(policy: PermissionPolicy, tool: Tool, inp: Any) -> Decision:
    name = tool.name
    host = host_of(tool.permission_subject(inp) or "")
    for rule in policy.deny:
        if rule.applies_to(name):
            hit = _matches(rule, host)
            if hit:
                return Decision("deny", f"denied by the rule {rule}", str(rule))
            if hit is None:
                return Decision("ask", f"the deny rule {rule} cannot be checked", str(rule))
    if policy.mode is PermissionMode.BYPASS:
        return Decision("allow", "bypassPermissions mode")
    for rule in policy.ask:
        if rule.applies_to(name) and _matches(rule, host) is not False:
            return Decision("ask", f"the rule {rule} asks", str(rule))
    for rule in policy.allow:
        if rule.applies_to(name) and _matches(rule, host) and host is not None:
            return Decision("allow", f"allowed by the rule {rule}", str(rule))
    if host is None:
        return Decision("ask", "the URL names no host a rule could allow")
    return Decision("ask", f"{name} wants to fetch from {host}")


def suggest_domain_rules(tool: Tool, inp: Any, policy: PermissionPolicy) -> list[Rule]:
    """ "Don't ask again" for a web tool: the call's domain."""
    host = host_of(tool.permission_subject(inp) or "")
    if host is None:
        return []
    return [Rule(tool.name, f"{DOMAIN}{host}", base=policy.workspace.root)]


def server_tool_decision(policy: PermissionPolicy, name: str) -> Decision:
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
