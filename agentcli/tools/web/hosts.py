"""What a web URL really reaches: its host read once, as the resolver would read it.

The permission rules (permissions/web_rules.py) and the fetch (fetching.py)
both start here, so a rule is never matched against one reading of a URL
while the HTTP client connects by another. A URL is taken apart by
`parse_url` and put back together from what was understood (`WebTarget.url`):
that canonical URL, never the model's text, is what is fetched.

Hosts are read strictly ("allow only what is understood"):
- an IPv4 address in any form `inet_aton` (and so `getaddrinfo`) accepts
  becomes its dotted quad: `2130706433`, `0x7f000001`, `0177.0.0.1`, `127.1`
  and `0x7f.1` are all `127.0.0.1`; a host whose last label is a number but
  that is no valid IPv4 address (`256.1.1.1`, `1.2.3.4.5`, `08.1`,
  `example.123`) is refused, since a resolver would send it to DNS;
- an IPv6 address is written compressed, and an IPv4-mapped one
  (`::ffff:127.0.0.1`, which reaches that IPv4 address) as its IPv4 address;
  zone ids (`%eth0`) are refused;
- a name is lower case, without its trailing dot, with international labels
  in their DNS form (IDNA with the UTS 46 mapping: fullwidth `１２７．０．０．１`
  is `127.0.0.1`, `Bücher` is `xn--bcher-kva`), made of letters, digits, `-`
  and `_` only;
- a user name or password, a backslash, a percent sign, a space or a control
  character anywhere in the authority is refused, so no reader can find
  another host in it (`http://evil@127.0.0.1/`, `http://127.0.0.1\\@a.com/`).

`address_kind` says why an address is not a public one: loopback, the
unspecified address (which reaches this machine), a private network (RFC 1918,
carrier-grade NAT, unique local IPv6), link-local, cloud metadata, an IPv4
address inside an IPv6 form (IPv4-compatible, NAT64, 6to4, judged by the
IPv4 address they carry), or any other range that is not publicly routed
(multicast, broadcast, reserved, documentation, benchmarking, Teredo).
Everything else counts as public. `localhost` and `*.localhost` are loopback
by name (RFC 6761): they are connected to 127.0.0.1 or ::1, never looked up.
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass
from urllib.parse import urlsplit

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

DEFAULT_PORTS = {"http": 80, "https": 443}
LOOPBACK_V4 = ipaddress.IPv4Address("127.0.0.1")
LOOPBACK_V6 = ipaddress.IPv6Address("::1")

_LABEL = re.compile(r"[a-z0-9_-]{1,63}")
_NUMERIC_LABEL = re.compile(r"[0-9]+|0x[0-9a-f]*")
_REFUSED_IN_AUTHORITY = {  # looked for in this order
    "\\": "a backslash in the host is refused",
    "%": "a percent sign (an encoded host or an IPv6 zone id) is refused",
    "@": "URLs with a user name or password are refused",
}

LOOPBACK = "a loopback address (this machine)"
UNSPECIFIED = "the unspecified address (it reaches this machine)"
PRIVATE = "a private network address"
LINK_LOCAL = "a link-local address"
METADATA = "a cloud metadata address"
NOT_PUBLIC = "not a public address"
IPV4_COMPATIBLE = "an IPv4-compatible IPv6 address (not a public address)"


class UrlError(ValueError):
    """The URL cannot be read as one scheme, host and port; the message says why."""


@dataclass(frozen=True, slots=True)
class Host:
    """A host as the resolver reads it: `name` is its one canonical spelling."""

    name: str
    address: IPAddress | None  # None for a DNS name

    @classmethod
    def of_address(cls, address: IPAddress) -> Host:
        address = canonical_address(address)
        return cls(str(address), address)

    @property
    def is_localhost(self) -> bool:
        """`localhost` or a name under it: loopback by definition (RFC 6761)."""
        return self.address is None and (
            self.name == "localhost" or self.name.endswith(".localhost")
        )

    @property
    def is_dns_name(self) -> bool:
        """A name that only a DNS lookup turns into addresses."""
        return self.address is None and not self.is_localhost

    @property
    def is_loopback(self) -> bool:
        return self.is_localhost or (self.address is not None and self.address.is_loopback)

    def url_form(self) -> str:
        """The host as a URL writes it (an IPv6 address in brackets)."""
        if isinstance(self.address, ipaddress.IPv6Address):
            return f"[{self.name}]"
        return self.name

    def private_reason(self) -> str | None:
        """Why this host is not a public one, when the URL alone says so."""
        if self.is_localhost:
            return f"{self.name} is {LOOPBACK}"
        if self.address is None:
            return None
        kind = address_kind(self.address)
        return None if kind is None else f"{self.name} is {kind}"

    def aliases(self) -> frozenset[str]:
        """The canonical names this host reaches by another spelling, itself included.

        `localhost` is 127.0.0.1 and ::1 (and they are it), and so is the unspecified
        address (0.0.0.0 or ::, which a connection takes for this machine); an IPv6
        form that carries an IPv4 address (IPv4-compatible, NAT64, 6to4) reaches that
        address. Deny and ask rules are matched through these; allow rules are not.
        """
        names = {self.name}
        if self.name == "localhost":
            names |= {str(LOOPBACK_V4), str(LOOPBACK_V6)}
        elif self.address in (LOOPBACK_V4, LOOPBACK_V6):
            names.add("localhost")
        elif self.address is not None and self.address.is_unspecified:  # connects to this machine
            names |= {"localhost", str(LOOPBACK_V4), str(LOOPBACK_V6)}
        if isinstance(self.address, ipaddress.IPv6Address):
            carried = _carried_ipv4(self.address)
            if carried is not None:
                names.add(str(carried))
        return frozenset(names)


@dataclass(frozen=True, slots=True)
class WebTarget:
    """A URL as understood: scheme, host, port, and the path and query as written."""

    scheme: str
    host: Host
    port: int
    path_query: str  # starts with "/"

    @property
    def url(self) -> str:
        """The canonical URL: the one that is fetched, shown and cached."""
        return f"{self.scheme}://{self.authority}{self.path_query}"

    @property
    def authority(self) -> str:
        """`host` or `host:port` (the port only when it is not the scheme's default),
        as the `Host` header carries it."""
        if self.port == DEFAULT_PORTS[self.scheme]:
            return self.host.url_form()
        return f"{self.host.url_form()}:{self.port}"

    def with_scheme(self, scheme: str) -> WebTarget:
        port = DEFAULT_PORTS[scheme] if self.port == DEFAULT_PORTS[self.scheme] else self.port
        return WebTarget(scheme, self.host, port, self.path_query)


def parse_url(url: str) -> WebTarget:
    """The URL's scheme, host and port, read strictly; `UrlError` when any of them
    cannot be read as exactly one thing. The fragment is dropped (it is never sent)."""
    text, shown = url.strip(), _cut(url)
    bad = next((c for c in text if _is_space_or_control(c)), None)
    if bad is not None:
        raise UrlError(f"Invalid URL {shown!r}: a space or control character ({bad!r}) is refused.")
    try:
        parts = urlsplit(text)
    except ValueError as exc:
        raise UrlError(f"Invalid URL {shown!r}: {exc}") from exc
    scheme = parts.scheme.lower()
    if scheme not in DEFAULT_PORTS:
        raise UrlError(f"Invalid URL {shown!r}: only http:// and https:// URLs can be fetched.")
    try:
        host_text, port_text = _split_authority(parts.netloc)
        host = parse_host(host_text)
        port = _port(port_text, scheme)
    except UrlError as exc:
        raise UrlError(f"Invalid URL {shown!r}: {exc}") from None
    path = parts.path if parts.path.startswith("/") else "/" + parts.path
    query = f"?{parts.query}" if parts.query else ""
    return WebTarget(scheme, host, port, path + query)


def _split_authority(netloc: str) -> tuple[str, str | None]:
    for char, why in _REFUSED_IN_AUTHORITY.items():
        if char in netloc:
            raise UrlError(f"{why}.")
    if not netloc:
        raise UrlError("it names no host.")
    if netloc.startswith("["):
        inside, bracket, rest = netloc[1:].partition("]")
        if not bracket:
            raise UrlError("an IPv6 address without its closing bracket.")
        if rest and not rest.startswith(":"):
            raise UrlError(f"{rest!r} after the IPv6 address.")
        return f"[{inside}]", rest[1:] if rest else None
    host, colon, port = netloc.partition(":")
    if ":" in port:
        raise UrlError("an IPv6 address must be written in brackets.")
    return host, port if colon else None


def _port(text: str | None, scheme: str) -> int:
    if not text:  # none, or `host:` (the default, as browsers read it)
        return DEFAULT_PORTS[scheme]
    if not (text.isascii() and text.isdigit()) or not 0 < int(text) < 65536:
        raise UrlError(f"the port {text!r} is not a number from 1 to 65535.")
    return int(text)


def parse_host(text: str) -> Host:
    """A host (an IPv6 address with or without brackets), in its canonical spelling."""
    if text.startswith("[") and text.endswith("]"):
        return _ipv6_host(text[1:-1])
    if ":" in text:
        return _ipv6_host(text)
    for char, why in _REFUSED_IN_AUTHORITY.items():
        if char in text:
            raise UrlError(f"{why}.")
    name = _ascii_name(text)
    if name.endswith("."):
        name = name[:-1]
    if not name:
        raise UrlError("it names no host.")
    labels = name.split(".")
    if _NUMERIC_LABEL.fullmatch(labels[-1]):
        return Host.of_address(_inet_aton(name))
    if len(name) > 253:
        raise UrlError("the host name is longer than 253 characters.")
    for label in labels:
        if not _LABEL.fullmatch(label):
            shown = label or "an empty label"
            raise UrlError(f"the host {text!r} cannot be read ({shown!r} is not a DNS label).")
    return Host(name, None)


def _ipv6_host(text: str) -> Host:
    if "%" in text:
        raise UrlError(_REFUSED_IN_AUTHORITY["%"] + ".")
    try:
        address = ipaddress.IPv6Address(text)
    except ValueError as exc:
        raise UrlError(f"{text!r} is not an IPv6 address ({exc}).") from None
    return Host.of_address(address)


def _ascii_name(text: str) -> str:
    """The host in lower-case ASCII: international names through IDNA (UTS 46)."""
    if text.isascii():
        return text.lower()
    import idna  # httpx's own dependency; loaded only for a non-ASCII host

    try:
        return str(idna.encode(text, uts46=True, std3_rules=True, transitional=False), "ascii")
    except idna.IDNAError as exc:
        raise UrlError(f"the host {text!r} cannot be read as an international name ({exc}).")


def _inet_aton(name: str) -> ipaddress.IPv4Address:
    """An IPv4 address in every form `inet_aton` accepts: one to four parts, each
    decimal, octal (a leading 0) or hex (0x), the last filling the bytes left."""
    parts = name.split(".")
    invalid = UrlError(f"{_cut(name)!r} ends in a number but is not a valid IPv4 address.")
    if len(parts) > 4:
        raise invalid
    numbers = []
    for part in parts:
        if part.startswith("0x"):
            digits, base = part[2:], 16
        elif len(part) > 1 and part.startswith("0"):
            digits, base = part[1:], 8
        else:
            digits, base = part, 10
        try:
            numbers.append(int(digits, base))
        except ValueError:
            raise invalid from None
    *leading, last = numbers
    if any(n > 255 for n in leading) or last >= 256 ** (5 - len(numbers)):
        raise invalid
    value = last
    for index, number in enumerate(leading):
        value += number << (8 * (3 - index))
    return ipaddress.IPv4Address(value)


def _cut(text: str, most: int = 200) -> str:
    """A text for a message: a hostile URL may be 8,000 characters long."""
    return text if len(text) <= most else text[:most] + "..."


def _is_space_or_control(char: str) -> bool:
    code = ord(char)
    return code <= 0x20 or 0x7F <= code <= 0x9F or char.isspace()


def canonical_address(address: IPAddress) -> IPAddress:
    """An IPv4-mapped IPv6 address is the IPv4 address it maps."""
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


# -- address kinds ---------------------------------------------------------------------

_METADATA = frozenset(
    ipaddress.ip_address(a)
    for a in (
        "169.254.169.254",  # AWS, GCP, Azure, OpenStack, Oracle...
        "169.254.170.2",  # AWS ECS task credentials
        "169.254.170.23",  # AWS EKS pod identity
        "100.100.100.200",  # Alibaba Cloud
        "192.0.0.192",  # Oracle Cloud (classic)
        "fd00:ec2::254",  # AWS over IPv6
        "fd00:ec2::23",
    )
)

_V4 = [
    (ipaddress.IPv4Network(net), kind)
    for net, kind in (
        ("0.0.0.0/32", UNSPECIFIED),
        ("0.0.0.0/8", NOT_PUBLIC),  # "this network"
        ("127.0.0.0/8", LOOPBACK),
        ("10.0.0.0/8", PRIVATE),
        ("172.16.0.0/12", PRIVATE),
        ("192.168.0.0/16", PRIVATE),
        ("100.64.0.0/10", PRIVATE),  # shared address space (carrier-grade NAT)
        ("169.254.0.0/16", LINK_LOCAL),
        ("192.0.0.0/24", NOT_PUBLIC),  # IETF protocol assignments
        ("192.0.2.0/24", NOT_PUBLIC),  # documentation
        ("198.51.100.0/24", NOT_PUBLIC),
        ("203.0.113.0/24", NOT_PUBLIC),
        ("192.88.99.0/24", NOT_PUBLIC),  # 6to4 relays (deprecated)
        ("198.18.0.0/15", NOT_PUBLIC),  # benchmarking
        ("224.0.0.0/4", NOT_PUBLIC),  # multicast
        ("240.0.0.0/4", NOT_PUBLIC),  # reserved, and the broadcast address
    )
]

_V6 = [
    (ipaddress.IPv6Network(net), kind)
    for net, kind in (
        ("::/128", UNSPECIFIED),
        ("::1/128", LOOPBACK),
        ("fc00::/7", PRIVATE),  # unique local
        ("fe80::/10", LINK_LOCAL),
        ("fec0::/10", PRIVATE),  # site-local (deprecated)
        ("ff00::/8", NOT_PUBLIC),  # multicast
        ("::/96", IPV4_COMPATIBLE),
        ("64:ff9b:1::/48", PRIVATE),  # NAT64 for local use
        ("100::/64", NOT_PUBLIC),  # discard
        ("2001::/23", NOT_PUBLIC),  # IETF protocol assignments, Teredo among them
        ("2001:db8::/32", NOT_PUBLIC),  # documentation
        ("3fff::/20", NOT_PUBLIC),
    )
]
_GLOBAL_UNICAST = ipaddress.IPv6Network("2000::/3")
_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")
_SIX_TO_FOUR = ipaddress.IPv6Network("2002::/16")
_COMPATIBLE = ipaddress.IPv6Network("::/96")


def address_kind(address: IPAddress) -> str | None:
    """What kind of address this is when it is not a public one; None when it is."""
    address = canonical_address(address)
    if address in _METADATA:
        return METADATA
    if isinstance(address, ipaddress.IPv4Address):
        return next((kind for net, kind in _V4 if address in net), None)
    if address in _NAT64 or address in _SIX_TO_FOUR:  # judged by the IPv4 address inside
        carried = _carried_ipv4(address)
        return None if carried is None else address_kind(carried)
    kind = next((kind for net, kind in _V6 if address in net), None)
    if kind is None and address not in _GLOBAL_UNICAST:
        return NOT_PUBLIC
    return kind


def _carried_ipv4(address: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 form carries: IPv4-compatible (`::a.b.c.d`), NAT64
    (`64:ff9b::a.b.c.d`), 6to4 (`2002:AABB:CCDD::`); None for other addresses."""
    value = int(address)
    if address in _COMPATIBLE or address in _NAT64:
        if address in _COMPATIBLE and value <= 1:  # :: and ::1 are themselves
            return None
        return ipaddress.IPv4Address(value & 0xFFFFFFFF)
    if address in _SIX_TO_FOUR:
        return ipaddress.IPv4Address((value >> 80) & 0xFFFFFFFF)
    return None
