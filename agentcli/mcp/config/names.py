"""How `mcp__<server>__<tool>` is told apart: which server names keep it exact.

Permission rules (config/rules.py) and the names the model calls
(mcp/names.py builds them) are both read the same way: the server is what
comes between `mcp__` and the first `__` after it. A server's name may hold
anything, and every character the API does not take becomes `_` (`clean`),
so that reading is exact only when the cleaned server name

- holds no `__` (server `a__b`'s tool `t1` would read as server `a`'s tool
  `b__t1`, and a rule `mcp__a__b` as tool `b` of server `a`);
- does not end with `_` (`a_` + `__` + `x` reads as `a` + `___x`);
- is at most MAX_SERVER characters, so that a tool name cut to 64 characters
  (with a hash, mcp/names.py) still holds the whole server name;
- is not another configured server's cleaned name too (`my.server` and
  `my_server`): see `clashes`.

A configured server that breaks one of these cannot be told apart from
another in a rule or a tool name, so it is refused at load with the file and
its name (mcp/config/servers.py), and the other servers still start. A name
starting with `_` is fine (`mcp___x__t` still splits after `_x`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from agentcli.config.rules import MCP_PREFIX, MCP_SEPARATOR

PREFIX = MCP_PREFIX  # `mcp__`, and `__` between server and tool: the rule syntax's
SEPARATOR = MCP_SEPARATOR
MAX_NAME = 64  # what the API takes
HASH_CHARS = 8  # the hash a cut name ends with, after a `_`
# Room left in a cut name for at least one character of the tool's own name.
MAX_SERVER = MAX_NAME - len(PREFIX) - len(SEPARATOR) - 1 - 1 - HASH_CHARS
_UNSAFE = re.compile(r"[^a-zA-Z0-9_-]")


def clean(name: str) -> str:
    """`name` with every character the API does not take replaced by `_`."""
    return _UNSAFE.sub("_", name) or "_"


def server_name_problem(name: str) -> str | None:
    """Why tool names and rules could not tell server `name` apart; None when they can."""
    cleaned = clean(name)
    shown = "" if cleaned == name else f" (as {cleaned!r} in tool names)"
    if SEPARATOR in cleaned:
        return (
            f"its name{shown} holds `__`, which separates the server from the tool in "
            "mcp__server__tool, so rules could not tell it apart: rename it"
        )
    if cleaned.endswith("_"):
        return (
            f"its name{shown} ends with `_`, which runs into the `__` after it in "
            "mcp__server__tool, so rules could not tell it apart: rename it"
        )
    if len(cleaned) > MAX_SERVER:
        return (
            f"its name is longer than {MAX_SERVER} characters, too long to stay whole in "
            "its tools' names (at most 64 characters): rename it"
        )
    return None


def clashes(names: Iterable[str]) -> dict[str, str]:
    """The names that read the same as another once cleaned, each with the name it
    clashes with. The one whose name is its own cleaned form keeps it; when none is,
    all of them clash."""
    groups: dict[str, list[str]] = {}
    for name in names:
        groups.setdefault(clean(name), []).append(name)
    out: dict[str, str] = {}
    for cleaned, group in groups.items():
        if len(group) < 2:
            continue
        for name in group:
            if name != cleaned:
                out[name] = next(other for other in group if other != name)
    return out


def clash_problem(name: str, other: str, other_source: str) -> str:
    return (
        f"its name reads as {clean(name)!r} in tool names and rules, as the server "
        f"{other!r} ({other_source}) does, so they could not be told apart: rename one"
    )
