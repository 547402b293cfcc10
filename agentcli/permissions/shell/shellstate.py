"""Commands that change the shell itself, and names bash would not read as commands.

After `eval`, `source`, `alias`, `shopt`, `trap`, `exec` (and the like) what
bash runs is no longer what the line shows; `set` with options beyond
error handling changes how the rest is read; a function exported in the
environment (`BASH_FUNC_git%%`) replaces a command; and a reserved word in
the place of a command name (`time { rm x; }`) means the grammar and bash
disagree. Each is a problem: the line is not understood.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from agentcli.permissions.shell.arithmetic import literal_value
from agentcli.permissions.shell.readonly_commands import is_read_only_argv
from agentcli.permissions.shell.testexpr import TEST_BUILTINS, fields_of, test_builtin_problem
from agentcli.permissions.shell.words import Word
from agentcli.permissions.shell.wrappers import Arg

# Builtins that change the shell itself: what runs after them is no longer what we see.
SHELL_STATE = {
    "eval": "`eval` runs text as a command",
    "source": "`source` runs a script in this shell",
    ".": "`.` runs a script in this shell",
    "exec": "`exec` replaces the shell or changes its open files",
    "coproc": "`coproc` starts a coprocess",
    "trap": "`trap` sets commands to run later",
    "alias": "`alias` changes what later words mean",
    "enable": "`enable` changes which builtins exist",
    "shopt": "`shopt` changes how words expand",
    "hash": "`hash` changes where commands are found",
    "read": "`read` sets variables from input",
    "mapfile": "`mapfile` sets variables from input",
    "readarray": "`readarray` sets variables from input",
    "declare": "`declare` changes variables (and evaluates subscripts)",
    "typeset": "`typeset` changes variables (and evaluates subscripts)",
    "local": "`local` changes variables (and evaluates subscripts)",
    "export": "`export` changes the environment of later commands",
    "readonly": "`readonly` changes variables",
    "unset": "`unset` changes variables later commands see (and evaluates subscripts)",
    "getopts": "`getopts` sets variables",
    "popd": "`popd` returns to a folder that is not known here",
    "bind": "`bind` changes key bindings",
    "complete": "`complete` changes completion",
    "fc": "`fc` runs commands from the history",
    "history": "`history` can run commands from the history",
}
# Words bash reads as syntax where a command starts (`time { rm x; }`): as a command
# name they mean the grammar and bash disagree. (`time` itself is read as a wrapper,
# which is what it means before a simple command; `[[` names our test commands.)
RESERVED = frozenset(
    {"!", "case", "coproc", "do", "done", "elif", "else", "esac", "fi", "for", "function",
     "if", "in", "select", "then", "until", "while", "{", "}", "]]"}
)  # fmt: skip


def name_problems(
    argv: Sequence[Arg], env: Mapping[str, str], words: Sequence[Word] = ()
) -> list[str]:
    """What this command changes in the shell that agentcli cannot follow."""
    name = argv[0] if argv else None
    if name is None:
        return []
    base = name.rsplit("/", 1)[-1]
    problems = _arithmetic_problems(base, argv, words)
    if name in RESERVED:
        problems.append(f"bash reads `{name}` here as a reserved word, not as a command")
    if f"BASH_FUNC_{base}%%" in env:
        problems.append(f"`{base}` is a shell function from the environment")
    if base in SHELL_STATE:
        problems.append(SHELL_STATE[base])
    args = [arg for arg in argv[1:] if arg is not None]
    if (
        base == "set"
        and argv[1:]
        and not (len(args) == len(argv) - 1 and is_read_only_argv(["set", *args]))
    ):
        problems.append("`set` with these options changes how the shell reads what follows")
    return problems


def _arithmetic_problems(base: str, argv: Sequence[Arg], words: Sequence[Word]) -> list[str]:
    """Builtins that evaluate names as arithmetic (testexpr.py, arithmetic.py)."""
    args = argv[1:]
    if base in TEST_BUILTINS:
        given = (
            list(words[1:])
            if words
            else [Word(a or "", (a,) if a is not None else None) for a in args]
        )
        if base == "[" and given and given[-1].values == ("]",):
            given = given[:-1]
        problem = test_builtin_problem(fields_of(given))
        return [problem] if problem else []
    if base == "printf":
        # bash reads `-v NAME` before the format: NAME is assigned, its subscript evaluated.
        first = args[0] if args else ""
        if first is None:
            return ["`printf` gets a first word that is not known before it runs (maybe `-v`)"]
        if first.startswith("-v"):
            return ["`printf -v` assigns a variable (its subscript is evaluated as arithmetic)"]
        return []
    if base == "let":
        if args and all(a is not None and literal_value(a) is not None for a in args):
            return []
        return ["`let` evaluates arithmetic on names, which can run code through subscripts"]
    if base == "wait" and any(a is None or a.startswith("-p") for a in args):
        return ["`wait -p` assigns a variable"]
    return []
