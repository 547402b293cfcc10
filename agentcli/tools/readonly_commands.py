"""Which shell commands can run without asking: the read-only ones.

The test is deliberately narrow. A command qualifies only when the whole
string is one simple command from the list below, with no shell syntax that
could hide a second command or a write: no `;`, `&`, `|`, newline, no
redirection at all (`<` included: `<>` opens for writing and a plain `cat
file` needs no `<`), no `$(...)`, backticks or `<(...)`, no subshells, no
leading `VAR=value` (`GIT_EXTERNAL_DIFF=x git diff` runs x). Options that make
a listed command write or execute (`find -delete`, `sort -o`, `rg --pre`) are
refused per command. Anything unusual is "not read-only": the cost of a false
"no" is one permission prompt, the cost of a false "yes" is unbounded.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class _Forbidden:
    """Options that turn a read-only command into one that writes or executes."""

    short: str = ""  # single-letter options, also inside clusters like -ro
    long: tuple[str, ...] = ()  # "--output": abbreviations like --out count too

    def hits(self, arg: str) -> bool:
        if arg.startswith("--"):
            name = arg.split("=", 1)[0]
            return len(name) > 2 and any(opt.startswith(name) for opt in self.long)
        if arg.startswith("-") and len(arg) > 1:
            return any(char in self.short for char in arg[1:])
        return False


_NONE = _Forbidden()

# command -> options that disqualify it.
SIMPLE_COMMANDS: dict[str, _Forbidden] = {
    "ls": _NONE,
    "pwd": _NONE,
    "cat": _NONE,
    "head": _NONE,
    "tail": _NONE,
    "wc": _NONE,
    "echo": _NONE,
    "which": _NONE,
    "file": _Forbidden("C", ("--compile",)),  # -C writes a compiled magic file
    "stat": _NONE,
    "du": _NONE,
    "df": _NONE,
    "tree": _Forbidden("o"),  # -o FILE writes the listing
    "grep": _NONE,
    "egrep": _NONE,
    "fgrep": _NONE,
    "rg": _Forbidden(long=("--pre", "--hostname-bin")),  # both run a program
    "sort": _Forbidden("o", ("--output", "--compress-program")),
    "date": _Forbidden("s", ("--set",)),
    "basename": _NONE,
    "dirname": _NONE,
    "realpath": _NONE,
    "readlink": _NONE,
    "whoami": _NONE,
    "uname": _NONE,
    "diff": _NONE,
    "cmp": _NONE,
    "md5sum": _NONE,
    "sha1sum": _NONE,
    "sha256sum": _NONE,
    "nl": _NONE,
}

# find's actions that run programs, delete, or write files.
_FIND_ACTIONS = frozenset(
    {"-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls"}
)

# git subcommands that only look; git options before the subcommand (-c, -C,
# --git-dir, --exec-path...) are refused outright.
_GIT_READ = frozenset({"status", "diff", "log", "show", "branch", "ls-files", "rev-parse", "blame"})
# --output writes a file; --ext-diff runs the configured external diff program.
_GIT_FORBIDDEN = _Forbidden(long=("--output", "--ext-diff"))
# `git branch` lists with these; any other option (-d, -m, -f...) changes branches.
_BRANCH_FLAGS = frozenset(
    {"-a", "--all", "-r", "--remotes", "-v", "-vv", "--verbose", "-l", "--list"}
    | {"--show-current", "--no-color", "--color", "--column", "--no-column"}
    | {"-i", "--ignore-case", "--omit-empty"}
)
_BRANCH_VALUE_FLAGS = frozenset(
    {"--contains", "--no-contains", "--merged", "--no-merged", "--points-at"}
    | {"--sort", "--format"}
)

_SIMPLE_PARAM = re.compile(r"\$(?:[A-Za-z_][A-Za-z0-9_]*|[0-9@*#?$!-]|\{[A-Za-z_][A-Za-z0-9_]*\})")


def is_read_only_command(command: str) -> bool:
    """True only when `command` is a single listed command that cannot write."""
    if _has_shell_syntax(command):
        return False
    try:
        words = shlex.split(command)
    except ValueError:
        return False
    if not words:
        return False
    name, args = words[0], words[1:]
    check = _SPECIAL.get(name)
    if check is not None:
        return check(args)
    forbidden = SIMPLE_COMMANDS.get(name)
    if forbidden is None:
        return False
    return not any(forbidden.hits(arg) for arg in args)


def _has_shell_syntax(command: str) -> bool:
    """True when the string holds anything beyond words, quotes and plain `$VAR`s.

    A scan of the raw text (not shlex tokens), because quoting is exactly what
    tells `echo ';'` (a word) from `echo ;` (a separator).
    """
    if any(char in command for char in "\n\r\0"):
        return True  # even quoted: a second line is too easy to overlook
    quote: str | None = None
    i, n = 0, len(command)
    while i < n:
        char = command[i]
        if quote == "'":
            if char == "'":
                quote = None
            i += 1
            continue
        if char == "\\":
            i += 2
            continue
        if char == "`":
            return True
        if char == "$":
            match = _SIMPLE_PARAM.match(command, i)
            if match:
                i = match.end()
                continue
            following = command[i + 1 : i + 2]
            if following not in ("", '"') and not following.isspace():
                return True  # $( $(( ${...} $'...' $[ : expansions that can run code
            i += 1
            continue
        if quote == '"':
            if char == '"':
                quote = None
        elif char in "'\"":
            quote = char
        elif char in ";&|<>()":
            return True
        i += 1
    return quote is not None


def _find(args: list[str]) -> bool:
    return not any(arg in _FIND_ACTIONS for arg in args)


def _git(args: list[str]) -> bool:
    if args and args[0] == "--no-pager":
        args = args[1:]
    if not args or args[0] not in _GIT_READ:
        return False
    sub, rest = args[0], args[1:]
    if any(_GIT_FORBIDDEN.hits(arg) for arg in rest):
        return False
    return _git_branch_lists(rest) if sub == "branch" else True


def _git_branch_lists(args: list[str]) -> bool:
    """`git branch NAME` creates a branch; only option-only forms (or --list) just list."""
    listing = any(arg in ("-l", "--list") for arg in args)
    expect_value = False
    for arg in args:
        if expect_value:
            expect_value = False
            continue
        name = arg.split("=", 1)[0]
        if name in _BRANCH_VALUE_FLAGS:
            expect_value = "=" not in arg
        elif arg.startswith("-"):
            if name not in _BRANCH_FLAGS:
                return False
        elif not listing:
            return False  # a positional name without --list: creating a branch
    return True


_SPECIAL: dict[str, Callable[[list[str]], bool]] = {"find": _find, "git": _git}
