"""Bash rules: matching `Bash(...)` specifiers against every command a line runs.

Specifier forms (Claude Code's):
- `npm run test:*`  prefix: the command's first words are `npm run test`;
- `git diff *`      wildcard: `*` matches any text; a trailing ` *` also
                    matches the bare command (`git diff`), never `git diffx`;
- `npm test`        exact: exactly this command.

Matching works on words (quotes removed), after looking through wrappers
(`timeout 10 npm test` is `npm test`). An allow rule vouches for one simple
command only: a line is allowed when *every* part is, and a part that
substitutes commands, uses syntax we do not model, or redirects to a file
outside the project is never allowed by a prefix rule. Deny and ask rules
match when *any* part (or any substituted command) matches.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable, Iterable
from pathlib import Path

from agentcli.permissions.bash_lexer import Part, is_fd_duplication, parse_command

_DURATION = re.compile(r"^\d+(\.\d+)?[smhd]?$")
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_SAFE_TARGETS = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr"})


def strip_wrappers(words: list[str]) -> list[str]:
    """Look through `timeout`, `time`, `nice` and `nohup` to the command they run.

    When a wrapper's options are not understood the words are returned from
    that wrapper on, so the line can only match a rule written for the wrapper.
    """
    while words:
        name, rest = words[0], words[1:]
        if name == "nohup":
            words = rest[1:] if rest[:1] == ["--"] else rest
        elif name == "time":
            while rest and rest[0] in ("-p", "--"):
                rest = rest[1:]
            words = rest
        elif name == "nice":
            inner = _skip_options(rest, with_value={"-n"}, flags=set(), long_value={"--adjustment"})
            if inner is None:
                return words
            if inner and re.fullmatch(r"-\d+", inner[0]):
                inner = inner[1:]
            words = inner
        elif name == "timeout":
            inner = _skip_options(
                rest,
                with_value={"-s", "-k"},
                flags={"-v", "--verbose", "--preserve-status", "--foreground"},
                long_value={"--signal", "--kill-after"},
            )
            if not inner or not _DURATION.match(inner[0]):
                return words
            words = inner[1:]
        else:
            return words
    return words


def _skip_options(
    words: list[str], *, with_value: set[str], flags: set[str], long_value: set[str]
) -> list[str] | None:
    """The words after a wrapper's options; None when an option is not understood."""
    i = 0
    while i < len(words):
        word = words[i]
        if word == "--":
            return words[i + 1 :]
        if not word.startswith("-") or word == "-" or re.fullmatch(r"-\d+", word):
            return words[i:]
        if word in with_value:
            i += 2
        elif (
            word in flags
            or ("=" in word and word.split("=", 1)[0] in long_value)
            or word[:2] in with_value
        ):
            i += 1
        else:
            return None
    return words[i:]


def command_words(part: Part) -> list[str]:
    return strip_wrappers(list(part.words))


def matches_specifier(specifier: str, words: list[str]) -> bool:
    """Does a Bash rule specifier match one simple command (its words)?"""
    spec = specifier.strip()
    if not words:
        return False
    if spec.endswith(":*"):
        prefix = _split(spec[:-2])
        return prefix is not None and words[: len(prefix)] == prefix
    if "*" in spec:
        return _wildcard(spec).fullmatch(" ".join(words)) is not None
    exact = _split(spec)
    return exact is not None and words == exact


def _split(text: str) -> list[str] | None:
    try:
        return shlex.split(text)
    except ValueError:
        return None


def _wildcard(spec: str) -> re.Pattern[str]:
    """`git diff *` -> `git diff` followed by nothing or by a space and anything."""
    trailing = spec.endswith(" *")
    body = spec[:-2].rstrip() if trailing else spec
    words = _split(body) or body.split()
    pattern = r"\ ".join(".*".join(re.escape(p) for p in w.split("*")) for w in words)
    if trailing:
        pattern += r"(?:\ .*)?"
    return re.compile(pattern, re.DOTALL)


def any_part_matches(specifiers: Iterable[str], command: str) -> str | None:
    """The first specifier matching any part of the line (or of what it substitutes).

    For deny and ask rules: one matching command is enough. Leading `VAR=x`
    assignments are skipped and a program's folder ignored (`/bin/rm` is `rm`),
    so they cannot be used to slip past a deny rule.
    """
    specs = list(specifiers)
    seen: set[str] = set()
    pending = [command]
    while pending:
        text = pending.pop()
        if text in seen:
            continue
        seen.add(text)
        parsed = parse_command(text)
        pending.extend(parsed.inner)
        for part in parsed.parts:
            for words in _deny_views(part):
                for spec in specs:
                    if matches_specifier(spec, words):
                        return spec
    return None


def _deny_views(part: Part) -> list[list[str]]:
    words = list(part.words)
    while words and _ASSIGNMENT.match(words[0]):
        words = words[1:]
    words = strip_wrappers(words)
    views = [words]
    if words and "/" in words[0]:
        views.append([words[0].rsplit("/", 1)[1], *words[1:]])
    return views


def redirects_stay_inside(
    part: Part, cwd: Path, is_inside: Callable[[Path], bool], home: Path | None = None
) -> bool:
    """True when every redirection names a file inside the project (or /dev/null)."""
    for op, target in part.redirects:
        if is_fd_duplication(op, target) or target in _SAFE_TARGETS:
            continue
        if not target or any(ch in target for ch in "$*?[{~`"):
            return False
        path = Path(target)
        if not path.is_absolute():
            path = cwd / path
        if not is_inside(path):
            return False
    return True


def split_for_allow(command: str) -> list[Part] | None:
    """The parts of a line, or None when it cannot be judged part by part."""
    parsed = parse_command(command)
    if not parsed.complete or not parsed.parts:
        return None
    return parsed.parts


def suggest_prefix(words: list[str]) -> str | None:
    """The rule "allow for this session" adds for one command: its first one or two words."""
    if not words:
        return None
    keep = 2 if len(words) > 1 and not words[1].startswith("-") and "/" not in words[1] else 1
    return shlex.join(words[:keep]) + ":*"
