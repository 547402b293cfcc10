"""Matching a `Bash(...)` rule specifier against one simple command.

Specifier forms (Claude Code's):
- `npm run test:*`  prefix: the command's first words are `npm run test`;
- `git diff *`      wildcard: `*` matches any text; a trailing ` *` also
                    matches the bare command (`git diff`), never `git diffx`;
- `npm test`        exact: exactly this command.

Words are compared after the shell's expansion (quotes removed, variables
expanded). A word that is not known before the line runs (`$(...)`) makes
the answer "cannot tell" (None): never enough for an allow rule, and enough
for a deny or ask rule to ask rather than let the line through.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence
from functools import lru_cache

from agentcli.permissions.shell.wrappers import Arg


def matches(spec: str, argv: Sequence[Arg]) -> bool | None:
    """True, False, or None when unknown words decide it."""
    spec = spec.strip()
    if not argv:
        return False
    if spec.endswith(":*"):
        return _prefix(_split(spec[:-2]), argv)
    if "*" in spec:
        return _wildcard(spec, argv)
    exact = _split(spec)
    if exact is None:
        return False
    result = _prefix(exact, argv)
    rest = argv[len(exact) :]
    if result is not True or not rest:
        return result
    return None if all(a is None for a in rest) else False


def first_words(spec: str) -> list[str]:
    """The literal words a specifier starts with (for the conservative text search)."""
    body = spec.strip().removesuffix(":*")
    words = _split(body.split("*", 1)[0]) or []
    return words


def _prefix(prefix: list[str] | None, argv: Sequence[Arg]) -> bool | None:
    if not prefix:
        return False
    for index, word in enumerate(prefix):
        if index >= len(argv):
            return False
        if argv[index] is None:
            return None
        if argv[index] != word:
            return False
    return True


def _wildcard(spec: str, argv: Sequence[Arg]) -> bool | None:
    known: list[str] = []
    for arg in argv:
        if arg is None:
            literal = first_words(spec)
            head = literal[: len(known)]
            return None if known[: len(head)] == head else False
        known.append(arg)
    return _wildcard_regex(spec).fullmatch(" ".join(known)) is not None


@lru_cache(maxsize=256)
def _split(text: str) -> list[str] | None:
    try:
        return shlex.split(text)
    except ValueError:
        return None


@lru_cache(maxsize=256)
def _wildcard_regex(spec: str) -> re.Pattern[str]:
    """`git diff *` -> `git diff` followed by nothing or by a space and anything."""
    trailing = spec.endswith(" *")
    body = spec[:-2].rstrip() if trailing else spec
    words = _split(body) or body.split()
    pattern = r"\ ".join(".*".join(re.escape(p) for p in w.split("*")) for w in words)
    if trailing:
        pattern += r"(?:\ .*)?"
    return re.compile(pattern, re.DOTALL)
