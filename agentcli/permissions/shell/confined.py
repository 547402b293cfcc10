"""What a command no rule allows may still not do unasked when it runs in the sandbox.

`autoAllowBashIfSandboxed` replaces the question "no rule allows this
command" with confinement. It does not replace what the rules protect
inside the project, which the sandbox leaves readable (`.env`, a file a Read
deny rule covers) or which the person must see first (`.git/`, settings).
So a sandboxed line runs unasked only when the same analysis as everywhere
else can say where it goes:

- the whole line is understood (an ANSI-C string, a parameter operator, a
  command name computed at run time, a shell reading its input: ask);
- every argument, assignment and redirect target is known before the line
  runs (no `$(...)` output, no unknown variable, no glob that matches
  nothing now: files made earlier in the line, or in the sandbox's own
  `/tmp`, would decide it): it could name anything;
- no word names a protected place or a Read-denied file, read either way:
  the word itself, an option's value (`--in=FILE`, `-fFILE`), each part of
  `A:B` (`REV:path`, `host:path`, search paths) and of `a,b`, `@FILE`;
- a read-only command passes the read checks a prefix rule would need
  (recursive reads over `.env` files, `REV:path`), a git command that
  prints the history passes the Read deny check (reading.py), and no
  credential-like variable is expanded.

What a program does with files it does not name on the line (a build
script reading `.env`) is the sandbox's part: it hides those files.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from pathlib import Path

from agentcli.permissions.shell.model import Command, Redirect
from agentcli.permissions.shell.places import QUIET, Places
from agentcli.permissions.shell.reading import history_problem, read_problem, repo_cwds
from agentcli.permissions.shell.secrets import secret_problem
from agentcli.permissions.shell.text import short
from agentcli.permissions.shell.words import Word

MAX_GLUED = 8  # `-xvfFILE`: how far into a cluster of short options a value may start


def confined_problem(
    places: Places, env: Mapping[str, str], command: Command, *, read_only: bool
) -> str | None:
    """Why this command may not run unasked even confined, or None."""
    shown = short(command.text)
    if command.dynamic_name:
        return "the command name is not known before the line runs"
    if any(arg is None for arg in command.argv):
        return f"`{shown}` has arguments that are not known before it runs"
    for name, word in command.assignments:
        if word.values is None:
            return f"`{shown}` sets {name} to a value that is not known before it runs"
    for word in command.words:
        if word.unmatched_glob:
            return (
                f"`{short(word.text)}` matches no file now: what it matches when the "
                "line runs is not known"
            )
    for redirect in command.redirects:
        problem = _redirect_problem(places, redirect)
        if problem:
            return problem
    words: list[Word] = [*command.words, *(word for _name, word in command.assignments)]
    secret = secret_problem(words, env, rule_allowed=True)
    if secret:
        return secret
    values = [a for a in command.argv[1:] if a is not None]
    values += [v for _name, word in command.assignments for v in word.values or ()]
    for value in values:
        problem = _named_place(places, command, value)
        if problem:
            return f"`{shown}` names {value}: {problem}"
    if read_only:
        # `find -exec` reads the contents of what it finds (the inner command's `{}`).
        content = command.name == "find" and bool(command.inner)
        problem = read_problem(places, command, rule_allowed=True, content=content)
        if problem:
            return problem
    return history_problem(places, command)


def _redirect_problem(places: Places, redirect: Redirect) -> str | None:
    target = redirect.target
    if target is None:
        return None
    if target.values is None or len(target.values) != 1 or target.unmatched_glob:
        return f"it redirects to `{short(target.text)}`, which is not known before it runs"
    value = target.values[0]
    if value in QUIET or value.startswith("/dev/fd/"):
        return None
    if redirect.writes:
        found = places.write(value, redirect.cwds, special_only=True)
        return f"it writes to {value}: {found}" if found else None
    if redirect.reads:
        read = places.read(value, redirect.cwds, tree=False, hidden=False)
        if read is not None and read[0] in ("deny", "special", "unknown"):
            return f"it reads {value}: {read[1]}"
    return None


def _named_place(places: Places, command: Command, value: str) -> str | None:
    """A protected place a word may name, read or written (we do not know which)."""
    for candidate, cwds in _candidates(places, command, value):
        found = places.write(candidate, cwds, special_only=True)
        if found:
            return found
        read = places.read(candidate, cwds, tree=False, hidden=False)
        if read is not None and read[0] in ("deny", "special", "unknown"):
            return read[1]
    return None


def _candidates(
    places: Places, command: Command, value: str
) -> Iterator[tuple[str, tuple[Path, ...] | None]]:
    """The paths a word may name, each with the folders it is relative to."""
    pieces = [value]
    if value.startswith("-") and not value.startswith("--") and "=" not in value:
        pieces += [value[k:] for k in range(2, min(len(value), 2 + MAX_GLUED))]
    pieces += [value[i + 1 :] for i, char in enumerate(value) if char in "=@"]
    pieces += [part for piece in list(pieces) for part in piece.replace(",", ":").split(":")]
    home = places.ctx.env.get("HOME", "")
    pieces += [os.path.join(home, p[2:]) for p in pieces if p.startswith("~/") and home]
    for piece in dict.fromkeys(pieces):
        if piece:
            yield piece, command.cwds
    # `REV:path` is relative to the top of the repository.
    path = value.split(":", 1)[1] if ":" in value else ""
    if path:
        yield path, repo_cwds(command, path)
