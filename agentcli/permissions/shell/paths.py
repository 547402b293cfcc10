"""Which arguments of a read-only command name what it reads.

`cat a b` reads a and b; `grep -r TODO src` reads everything under src (the
first word is a pattern); `git show HEAD:.env` reads .env from the repository;
`git blame --contents=FILE` and `diff --from-file=FILE` read FILE; `echo a/b`
reads nothing. Each listed command says which of its options take a value
and which of those values are files; a value or argument we are not sure
about counts as a path when it contains `/` or names something that exists
(`maybe`), so unsure means checked.

Recursive readers (`grep -r`, `rg`, `find`, `ls -R`, `tree`, `du`, `diff -r`,
git's history commands) also report the folders they go through, so the
caller can refuse when those folders hold files a Read deny rule covers.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from agentcli.permissions.shell.readonly_commands import find_own_args


@dataclass(slots=True)
class Reads:
    files: list[str] = field(default_factory=list)  # surely paths
    maybe: list[str] = field(default_factory=list)  # paths if they exist (or contain `/`)
    tree: list[str] = field(default_factory=list)  # folders read recursively
    hidden: bool = True  # recursive reading includes hidden files such as .env
    repo: list[str] = field(default_factory=list)  # `REV:path`: paths from the repository
    whole_repo: bool = False  # prints the names of files anywhere in the work tree
    patterns: list[str] = field(default_factory=list)  # git pathspec patterns: any file


@dataclass(frozen=True, slots=True)
class _Options:
    short_value: str = ""  # short options that take a value
    long_value: frozenset[str] = frozenset()  # long options that take a value
    path_options: frozenset[str] = frozenset()  # options whose value is a file
    pattern_first: bool = False  # the first positional is a pattern, not a file
    no_paths: bool = False  # its arguments are never read as files
    recursive_flags: frozenset[str] = frozenset()  # options that make it recurse
    recursive_short: str = ""
    always_recursive: bool = False
    default_dot: bool = False  # with no file, it reads "."
    names_only: bool = False  # lists names, never reads contents (.env files are fine)


def _f(*names: str) -> frozenset[str]:
    return frozenset(names)


_GREP = _Options(
    short_value="efABCmdD",
    long_value=_f(
        "--regexp", "--file", "--after-context", "--before-context", "--context",
        "--max-count", "--directories", "--devices", "--include", "--exclude",
        "--exclude-dir", "--exclude-from", "--label", "--binary-files", "--color", "--colour",
    ),
    path_options=_f("-f", "--file", "--exclude-from"),
    pattern_first=True,
    recursive_flags=_f("--recursive", "--dereference-recursive", "--directories=recurse"),
    recursive_short="rR",
)  # fmt: skip
_COMMANDS: dict[str, _Options] = {
    "echo": _Options(no_paths=True),
    "tr": _Options(no_paths=True),
    "cut": _Options(
        short_value="bcfd",
        long_value=_f("--bytes", "--characters", "--fields", "--delimiter", "--output-delimiter"),
    ),
    "printf": _Options(no_paths=True),
    "pwd": _Options(no_paths=True),
    "whoami": _Options(no_paths=True),
    "uname": _Options(no_paths=True),
    "which": _Options(no_paths=True),
    "basename": _Options(no_paths=True),
    "dirname": _Options(no_paths=True),
    "true": _Options(no_paths=True),
    "false": _Options(no_paths=True),
    "[[": _Options(no_paths=True),
    "((": _Options(no_paths=True),
    "test": _Options(no_paths=True),
    ":": _Options(no_paths=True),
    "set": _Options(no_paths=True),
    "date": _Options(
        short_value="dfrI",
        long_value=_f("--date", "--file", "--reference"),
        path_options=_f("-f", "--file", "-r", "--reference"),
        no_paths=True,
    ),
    "grep": _GREP,
    "egrep": _GREP,
    "fgrep": _GREP,
    "rg": _Options(
        short_value="efgtTmABCMjdErE",
        long_value=_f(
            "--regexp",
            "--file",
            "--glob",
            "--iglob",
            "--type",
            "--type-not",
            "--max-count",
            "--after-context",
            "--before-context",
            "--context",
            "--max-columns",
            "--threads",
            "--max-depth",
            "--encoding",
            "--replace",
            "--ignore-file",
            "--type-add",
            "--sort",
            "--sortr",
            "--color",
            "--colors",
            "--max-filesize",
            "--path-separator",
        ),
        path_options=_f("-f", "--file", "--ignore-file"),
        pattern_first=True,
        always_recursive=True,
        default_dot=True,
    ),
    "ls": _Options(
        short_value="IwT",
        long_value=_f(
            "--ignore",
            "--hide",
            "--width",
            "--format",
            "--sort",
            "--time",
            "--color",
            "--block-size",
            "--tabsize",
            "--quoting-style",
            "--indicator-style",
            "--time-style",
        ),
        recursive_flags=_f("--recursive"),
        recursive_short="R",
        names_only=True,
    ),
    "tree": _Options(
        short_value="LPIo",
        long_value=_f("--filelimit", "--charset", "--timefmt", "--sort"),
        always_recursive=True,
        default_dot=True,
        names_only=True,
    ),
    "du": _Options(
        short_value="dBt",
        long_value=_f(
            "--max-depth",
            "--exclude",
            "--block-size",
            "--threshold",
            "--time-style",
            "--files0-from",
        ),
        path_options=_f("--files0-from"),
        always_recursive=True,
        default_dot=True,
        names_only=True,
    ),
    "head": _Options(short_value="nc", long_value=_f("--lines", "--bytes")),
    "tail": _Options(
        short_value="ncs",
        long_value=_f("--lines", "--bytes", "--sleep-interval", "--pid", "--max-unchanged-stats"),
    ),
    "sort": _Options(
        short_value="ktS",
        long_value=_f(
            "--key",
            "--field-separator",
            "--buffer-size",
            "--files0-from",
            "--parallel",
            "--batch-size",
        ),
        path_options=_f("--files0-from"),
    ),
    "wc": _Options(long_value=_f("--files0-from"), path_options=_f("--files0-from")),
    "nl": _Options(short_value="bdfhilnsvw"),
    "stat": _Options(short_value="c", long_value=_f("--format", "--printf")),
    "df": _Options(
        short_value="tBx", long_value=_f("--type", "--block-size", "--exclude-type", "--output")
    ),
    "file": _Options(
        short_value="mfFeP",
        long_value=_f("--magic-file", "--files-from", "--separator", "--exclude", "--parameter"),
        path_options=_f("-m", "--magic-file", "-f", "--files-from"),
    ),
    "diff": _Options(
        short_value="xXIFUCLWS",
        long_value=_f(
            "--exclude",
            "--exclude-from",
            "--ignore-matching-lines",
            "--label",
            "--unified",
            "--context",
            "--from-file",
            "--to-file",
            "--width",
            "--starting-file",
            "--show-function-line",
            "--color",
            "--palette",
            "--line-format",
            "--old-line-format",
            "--new-line-format",
            "--unchanged-line-format",
        ),
        path_options=_f("-X", "--exclude-from", "--from-file", "--to-file"),
        recursive_flags=_f("--recursive"),
        recursive_short="r",
    ),
    "cmp": _Options(short_value="in", long_value=_f("--ignore-initial", "--bytes")),
}


def reads_of(argv: Sequence[str]) -> Reads:
    """What a read-only command (its expanded words, name first) reads."""
    name, args = argv[0], list(argv[1:])
    if name == "git":
        return _git(args)
    if name == "find":
        return _find(args)
    options = _COMMANDS.get(name, _Options())
    reads = Reads()
    positional: list[str] = []
    recursive = options.always_recursive
    pattern_given = False
    i = 0
    while i < len(args):
        arg = args[i]
        i += 1
        if arg == "--":
            positional.extend(args[i:])
            break
        if arg.startswith("--") and len(arg) > 2:
            opt, eq, value = arg.partition("=")
            recursive = recursive or arg in options.recursive_flags
            if opt in ("--regexp", "--file"):
                pattern_given = True
            if opt in options.long_value and not eq and i < len(args):
                value, eq = args[i], "="
                i += 1
            if eq:
                _value(reads, opt, value, options)
            continue
        if arg.startswith("-") and len(arg) > 1 and not _is_number(arg):
            for index, letter in enumerate(arg[1:], start=1):
                recursive = recursive or letter in options.recursive_short
                if letter in options.short_value:
                    if letter in "ef" and options.pattern_first:
                        pattern_given = True
                    value = arg[index + 1 :]
                    if not value and i < len(args):
                        value = args[i]
                        i += 1
                    if letter == "d" and name in ("grep", "egrep", "fgrep") and value == "recurse":
                        recursive = True
                    _value(reads, "-" + letter, value, options)
                    break
            continue
        positional.append(arg)
    if options.pattern_first and not pattern_given and positional:
        positional = positional[1:]
    if (name == "rg" and not _rg_hidden(args)) or options.names_only:
        reads.hidden = False
    if options.no_paths:
        return reads
    if not positional and (options.default_dot or recursive):
        positional = ["."]
    reads.files.extend(positional)
    if recursive:
        reads.tree.extend(positional)
    return reads


def _value(reads: Reads, option: str, value: str, options: _Options) -> None:
    """A file option's value is read; a known option's is not; an unknown one's may be."""
    if option in options.path_options:
        reads.files.append(value)
    elif option in options.long_value or (len(option) == 2 and option[1] in options.short_value):
        return
    elif not options.no_paths:
        reads.maybe.append(value)


def _is_number(arg: str) -> bool:
    return re.fullmatch(r"-\d+", arg) is not None


def _rg_hidden(args: list[str]) -> bool:
    return any(
        a in ("--hidden", "--no-ignore", "-.", "--no-ignore-dot") or re.fullmatch(r"-u+", a)
        for a in args
    )


def _find(args: list[str]) -> Reads:
    own = find_own_args(args)
    reads = Reads(hidden=False)  # names only (what -exec runs is judged on its own)
    roots: list[str] = []
    i = 0
    while i < len(own) and not own[i].startswith(("-", "(", "!", ")")):
        roots.append(own[i])
        i += 1
    roots = roots or ["."]
    reads.files.extend(roots)
    reads.tree.extend(roots)
    expression = own[i:]
    file_tests = ("-newer", "-anewer", "-cnewer", "-samefile", "-files0-from")
    for index, arg in enumerate(expression[:-1]):
        if arg in file_tests or (arg.startswith("-newer") and len(arg) == 8):
            reads.files.append(expression[index + 1])
    return reads


_GIT_PATH_OPTIONS = _f("--contents", "-O", "--ignore-revs-file")


# Subcommands that print the names of the work tree's files (unless pathspecs narrow
# them); what prints committed files is gitreads.py's question.
_GIT_WORK_TREE = frozenset({"status", "ls-files"})


def _git(args: list[str]) -> Reads:
    """git reads its repository; `REV:path` names a file in it; other words may be paths.

    An option's separate value (`--author me`) is taken as a possible path too:
    cheaper than a list of which options take one, and unsure means checked.
    """
    reads = Reads()
    if args and args[0] == "--no-pager":
        args = args[1:]
    sub, rest = (args[0], args[1:]) if args else ("", [])
    pathspecs: list[str] = []
    after_dashes = False
    i = 0
    while i < len(rest):
        arg = rest[i]
        i += 1
        if after_dashes:
            pathspecs.append(arg)
        elif arg == "--":
            after_dashes = True
        elif arg.startswith("-"):
            opt, eq, value = arg.partition("=")
            if opt in _GIT_PATH_OPTIONS:
                if not eq and i < len(rest):
                    value = rest[i]
                    i += 1
                reads.files.append(value)
            elif eq:
                reads.maybe.append(value)
        elif ":" in arg:
            reads.repo.append(arg.split(":", 1)[1])
        else:
            reads.maybe.append(arg)
    # Patterns and magic (`'*.env'`, `:(glob)**`) match files git knows, wherever they are.
    patterns = [p for p in pathspecs if p.startswith(":") or any(c in p for c in "*?[")]
    reads.patterns.extend(patterns)
    pathspecs = [p for p in pathspecs if p not in patterns]
    reads.files.extend(pathspecs)
    reads.tree.extend(pathspecs)
    narrowed = pathspecs and not patterns
    reads.whole_repo = sub in _GIT_WORK_TREE and not narrowed
    return reads


# Options that write a file, for commands a rule may allow with them.
_OUTPUT_OPTIONS = {"git": ("--output",), "sort": ("-o", "--output"), "tree": ("-o",)}


def output_files(argv: Sequence[str]) -> list[str]:
    """The files an output option of this command writes (`git diff --output=FILE`)."""
    options = _OUTPUT_OPTIONS.get(argv[0], ()) if argv else ()
    out: list[str] = []
    for index, arg in enumerate(argv[1:], start=1):
        for option in options:
            if arg == option and index + 1 < len(argv):
                out.append(argv[index + 1])
            elif arg.startswith(option + "=") or (len(option) == 2 and arg.startswith(option)):
                out.append(arg.split("=", 1)[1] if "=" in arg else arg[len(option) :])
    return [value for value in out if value]
