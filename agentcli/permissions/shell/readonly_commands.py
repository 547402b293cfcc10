"""Which commands only look: the read-only list, judged on a command's arguments.

A command qualifies when its name is listed below and none of its options
makes it write or execute (`find -delete`, `sort -o`, `rg --pre`, `git -c`).
This module judges one simple command's words (after the shell has expanded
them); what the shell itself does around it (redirects, substitutions, the
paths named, the folder it runs in) is judged by the rest of the analysis
(check.py `line_is_read_only()` for a whole line). Anything unusual is "not
read-only": the cost of a false "no" is one permission prompt, the cost of a
false "yes" is unbounded.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
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
    "printf": _Forbidden("v"),  # -v VAR assigns instead of printing
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
    "sort": _Forbidden("oT", ("--output", "--compress-program", "--temporary-directory")),
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
    "tr": _NONE,
    "cut": _NONE,
    "true": _NONE,
    "false": _NONE,
    ":": _NONE,
    "test": _NONE,
    "[[": _NONE,  # a test (the analysis gives `[ ... ]` and `[[ ... ]]` this name)
    "((": _NONE,  # arithmetic on literals only (the analysis gives `(( ... ))` this name)
}

# find's actions that delete or write files (-exec and friends run a command:
# the permission check judges that command on its own, see wrappers.py).
_FIND_ACTIONS = frozenset({"-delete", "-fprint", "-fprint0", "-fprintf", "-fls"})
FIND_EXEC = frozenset({"-exec", "-execdir", "-ok", "-okdir"})

# git subcommands that only look; git options before the subcommand (-c, -C,
# --git-dir, --exec-path...) are refused outright.
_GIT_READ = frozenset(
    {"status", "diff", "log", "show", "branch", "ls-files", "rev-parse", "blame", "cat-file"}
    | {"grep"}
)
# --output writes a file; --ext-diff runs the configured external diff program;
# `git grep -O` opens the files in a program of the model's choosing.
_GIT_FORBIDDEN = _Forbidden(long=("--output", "--ext-diff", "--open-files-in-pager"))
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


def is_read_only_argv(argv: Sequence[str]) -> bool:
    """True only when this one command (its expanded words) is listed and cannot write."""
    if not argv:
        return False
    name, args = argv[0], list(argv[1:])
    check = _SPECIAL.get(name)
    if check is not None:
        return check(args)
    forbidden = SIMPLE_COMMANDS.get(name)
    if forbidden is None:
        return False
    return not any(forbidden.hits(arg) for arg in args)


def find_own_args(args: Sequence[str]) -> list[str]:
    """find's arguments without its `-exec ... ;` parts (those are commands of their own)."""
    out: list[str] = []
    skipping = False
    for arg in args:
        if skipping:
            skipping = arg not in (";", "+")
        elif arg in FIND_EXEC:
            skipping = True
        else:
            out.append(arg)
    return out


def _find(args: list[str]) -> bool:
    return not any(arg in _FIND_ACTIONS for arg in find_own_args(args))


def _git(args: list[str]) -> bool:
    if args and args[0] == "--no-pager":
        args = args[1:]
    if not args or args[0] not in _GIT_READ:
        return False
    sub, rest = args[0], args[1:]
    if any(_GIT_FORBIDDEN.hits(arg) for arg in rest):
        return False
    if sub == "grep" and any(a.startswith("-O") for a in rest):
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


_SET_FLAGS = frozenset({"-e", "-u", "-x", "+e", "+u", "+x", "-eu", "-ex", "-ux", "-eux"})
_SET_NAMES = frozenset({"pipefail", "errexit", "nounset", "xtrace"})


def _set(args: list[str]) -> bool:
    """`set -euo pipefail` only changes error handling; a bare `set` prints every variable."""
    expect_name = False
    for arg in args:
        if expect_name:
            expect_name = False
            if arg not in _SET_NAMES:
                return False
        elif arg in ("-o", "+o", "-euo", "-eo", "-uo"):
            expect_name = True
        elif arg not in _SET_FLAGS:
            return False
    return bool(args) and not expect_name


_SPECIAL: dict[str, Callable[[list[str]], bool]] = {"find": _find, "git": _git, "set": _set}
