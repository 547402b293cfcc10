"""The names MCP tools go by in the Messages API: `mcp__<server>__<tool>`.

The API takes tool names of 1 to 64 characters from [a-zA-Z0-9_-], unique in
a request; a server's and a tool's names may hold anything. As in Claude
Code, every other character becomes `_`, and permission rules name tools the
same way (`mcp__my_server__search`). A name that is too long, or that two
tools would share once cleaned (`a.b` and `a_b`), is cut and given a short
hash of the original server and tool names, so it is the same in every run:
the tool list is part of the cached prompt prefix, and rules must keep
matching. A tool whose cleaned name is its own keeps it, so a newcomer never
renames a tool the model already knows.

Reading a name back (which server a rule or a call is about) splits at the
first `__` after `mcp__`; mcp/config/names.py says which server names keep
that exact, and the others are refused at load. For those, a cut name still
holds the whole `mcp__<server>__` and names of two servers never collide.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

from agentcli.mcp.config.names import HASH_CHARS as _HASH_CHARS
from agentcli.mcp.config.names import MAX_NAME, PREFIX, clean

__all__ = ["MAX_NAME", "PREFIX", "api_names", "clean", "hashed_name", "plain_name", "server_prefix"]


def server_prefix(server: str) -> str:
    """What every tool name of `server` starts with (and what a rule `mcp__server` names)."""
    return f"{PREFIX}{clean(server)}__"


def plain_name(server: str, tool: str) -> str:
    return f"{server_prefix(server)}{clean(tool)}"


def hashed_name(server: str, tool: str) -> str:
    """The plain name cut to fit, ending in a hash of the original names."""
    digest = hashlib.sha256(f"{server}\0{tool}".encode()).hexdigest()[:_HASH_CHARS]
    return f"{plain_name(server, tool)[: MAX_NAME - _HASH_CHARS - 1]}_{digest}"


def api_names(pairs: Iterable[tuple[str, str]]) -> dict[tuple[str, str], str]:
    """A unique API name for each (server, tool), the same for the same pairs.

    A plain name that fits is kept when it is the pair's own (nothing was
    cleaned) or no other pair cleans to it; the others get the hashed name.
    """
    pairs = sorted(set(pairs))
    plain = {pair: plain_name(*pair) for pair in pairs}
    owners: dict[str, list[tuple[str, str]]] = {}
    for pair, name in plain.items():
        owners.setdefault(name, []).append(pair)
    names: dict[tuple[str, str], str] = {}
    for pair, name in plain.items():
        rivals = owners[name]
        untouched = [p for p in rivals if clean(p[0]) == p[0] and clean(p[1]) == p[1]]
        keeps = len(rivals) == 1 or untouched == [pair]
        names[pair] = name if keeps and len(name) <= MAX_NAME else hashed_name(*pair)
    return names
