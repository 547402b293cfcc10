"""What a wrapper runs, as the wrapper tables (wrappers.py, shells.py, runners.py) say it.

An `Unwrapped` names the commands a wrapper runs (`inners`), a script it
hands to a shell (`script`, parsed like the line itself), or why that cannot
be known (`dynamic`: it reads commands from its input, or from a word not
known before the line runs). `needs_own_rule`: the wrapper changes who or
where the command runs (`sudo`, `chroot`) or writes a file itself (`script`,
`flock`), so a rule for the inner command does not vouch for the wrapper.

A wrapper whose options are not fully understood is `unmodelled`: every later
word is tried as the start of a command and every word that could be a
command string is parsed (`candidates`, `scripts`), for deny and ask rules
only, and the line is not understood (the note says why).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from agentcli.permissions.shell.options import Arg

_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
_SCRIPT_CHARS = re.compile(r"[\s;&|`$()<>]")


@dataclass(frozen=True, slots=True)
class Inner:
    """One command a wrapper runs."""

    argv: tuple[Arg, ...]
    exact: bool = True  # every option of the wrapper was understood
    via: str = ""  # the wrapper, for messages


@dataclass(frozen=True, slots=True)
class Unwrapped:
    inners: tuple[Inner, ...] = ()
    script: str | None = None  # sh -c / eval text to analyse like the line
    dynamic: str | None = None  # it runs commands that cannot be known
    needs_own_rule: str | None = None  # never allowed through the inner command's rule
    candidates: tuple[tuple[Arg, ...], ...] = ()  # deny-only views when not exact
    scripts: tuple[str, ...] = ()  # deny-only: words that may be command strings
    opaque: bool = False  # it runs something we cannot see (a script file)
    elsewhere: bool = False  # it runs in another folder (`env -C`, `sudo -i`, `chroot`)
    notes: tuple[str, ...] = field(default=())


NOT_A_WRAPPER = Unwrapped()


def exact(
    name: str, argv: tuple[Arg, ...], *, own_rule: str | None = None, elsewhere: bool = False
) -> Unwrapped:
    """It runs `argv` and adds nothing a rule for `argv` would not cover (unless `own_rule`);
    `elsewhere`: in another folder, so its relative paths are not known."""
    if not argv:
        return NOT_A_WRAPPER
    if argv[0] is None:
        return Unwrapped(dynamic=f"`{name}` runs a command that is not known before it runs")
    return Unwrapped(inners=(Inner(argv, via=name),), needs_own_rule=own_rule, elsewhere=elsewhere)


def shell_script(
    name: str, text: Arg, *, own_rule: str | None = None, elsewhere: bool = False
) -> Unwrapped:
    """It hands `text` to `sh -c`."""
    if text is None:
        return Unwrapped(dynamic=f"`{name}` runs a command string that is not known before it runs")
    return Unwrapped(script=text, needs_own_rule=own_rule, elsewhere=elsewhere)


def unmodelled(name: str, rest: tuple[Arg, ...], why: str = "") -> Unwrapped:
    """Options agentcli does not model: deny and ask rules look at every later word."""
    views = tuple(rest[i:] for i in range(len(rest)) if rest[i] is None or _plain(rest[i]))
    scripts = tuple(a for a in rest if a is not None and _SCRIPT_CHARS.search(a))
    note = why or f"`{name}` runs a command agentcli cannot pin down"
    return Unwrapped(candidates=views, scripts=scripts, notes=(note,))


def _plain(arg: Arg) -> bool:
    return arg is not None and not arg.startswith("-") and not _ENV_NAME.match(arg)


def skip_assignments(words: tuple[Arg, ...]) -> tuple[Arg, ...]:
    """`VAR=value` words before a command (sudo, env)."""
    i = 0
    while i < len(words) and words[i] is not None and _ENV_NAME.match(words[i] or ""):
        i += 1
    return words[i:]
