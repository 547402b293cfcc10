"""Commands that run other commands: what they run, and whether we can tell exactly.

`timeout 5 rm x` runs `rm x`; so do `command rm x`, `env A=1 rm x`,
`nice -n 5 rm x`, `nohup rm x`, `time rm x`, `sudo rm x`, `xargs rm`,
`find . -exec rm {} \\;` and `bash -c 'rm x'`. Deny and ask rules must see
the inner command, and an allow rule for the inner command should cover the
wrapper when the wrapper itself adds nothing (a timeout, a priority).

For each wrapper we know the options exactly. When an option is not one we
know, or a word is not known before the line runs, the unwrap is not
`exact`: an allow rule for the inner command does not vouch for the line,
and for deny rules every later word is tried as the start of a command
(`candidates`), so `ionice -c 3 rm x` still meets `Bash(rm:*)`.

Some wrappers need more than an allow rule for what they run:
- `sudo`/`doas` run it as another user: never allowed without a rule naming
  `sudo` itself;
- `sh -c SCRIPT` (and bash, zsh, dash, ksh) runs SCRIPT, which is parsed and
  analysed like the line itself; `sh` reading its commands from input, or a
  script that is not known before the line runs, is `dynamic`;
- `eval` and `exec` are not understood (eval's text is still searched for
  denied commands).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

Arg = str | None  # None: words not known before the line runs (zero or more)

SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "busybox-sh"})
# Wrappers whose options we do not model: only the deny/ask side looks inside.
_GENERIC = frozenset(
    {
        "ionice", "chrt", "taskset", "setsid", "stdbuf", "unbuffer", "flock", "watch",
        "strace", "ltrace", "chroot", "runuser", "su", "script", "parallel", "busybox",
        "caffeinate", "systemd-run", "firejail", "unshare", "nsenter", "proot", "fakeroot",
        "torsocks", "proxychains", "proxychains4", "catchsegv", "valgrind", "gdb", "doas",
        "sudo", "pkexec", "retry", "exec", "coproc", "then", "do",
    }
)  # fmt: skip
_DURATION = re.compile(r"\d+(\.\d+)?[smhd]?")
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")


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
    opaque: bool = False  # it runs something we cannot see (a script file)
    notes: tuple[str, ...] = field(default=())


NOT_A_WRAPPER = Unwrapped()


def unwrap(argv: tuple[Arg, ...]) -> Unwrapped:
    """What `argv` runs, if its first word is a wrapper; NOT_A_WRAPPER otherwise."""
    if not argv or argv[0] is None:
        return NOT_A_WRAPPER
    name = argv[0].rsplit("/", 1)[-1]
    rest = argv[1:]
    handler = _HANDLERS.get(name)
    if handler is not None:
        return handler(name, rest)
    if name in SHELLS:
        return _shell(name, rest)
    if name in _GENERIC:
        result = _generic(name, rest)
        if name in ("sudo", "doas", "pkexec", "su", "runuser"):
            return Unwrapped(
                candidates=result.candidates,
                needs_own_rule=f"`{name}` runs a command as another user",
            )
        return result
    return NOT_A_WRAPPER


def _generic(name: str, rest: tuple[Arg, ...]) -> Unwrapped:
    """Every word that could start a command is tried (deny and ask rules only)."""
    views = tuple(rest[i:] for i in range(len(rest)) if rest[i] is None or _plain(rest[i]))
    return Unwrapped(candidates=views, notes=(f"`{name}` runs a command agentcli cannot pin down",))


def _plain(arg: Arg) -> bool:
    return arg is not None and not arg.startswith("-") and not _ENV_NAME.match(arg)


def _exact(name: str, argv: tuple[Arg, ...], **kw: bool) -> Unwrapped:
    return Unwrapped(inners=(Inner(argv, via=name, **kw),))


def _not_exact(name: str, rest: tuple[Arg, ...]) -> Unwrapped:
    generic = _generic(name, rest)
    return Unwrapped(candidates=generic.candidates, notes=generic.notes)


def _skip_options(
    rest: tuple[Arg, ...],
    flags: set[str],
    with_value: set[str],
    long_value: frozenset[str] | set[str] = frozenset(),
) -> tuple[Arg, ...] | None:
    """The words after a wrapper's options; None when an option is not understood."""
    i = 0
    while i < len(rest):
        word = rest[i]
        if word is None:
            return None
        if word == "--":
            return rest[i + 1 :]
        if not word.startswith("-") or word == "-":
            return rest[i:]
        if word in with_value:
            i += 2
        elif (
            word in flags
            or (word.split("=", 1)[0] in long_value and "=" in word)
            or (word[:2] in with_value and len(word) > 2)
        ):
            i += 1
        else:
            return None
    return rest[i:]


def _command(name: str, rest: tuple[Arg, ...]) -> Unwrapped:
    if rest[:1] in (("-v",), ("-V",)):
        return NOT_A_WRAPPER  # it only looks a command up
    inner = _skip_options(rest, {"-p"}, set())
    return _not_exact(name, rest) if inner is None else _exact(name, inner)


def _builtin(name: str, rest: tuple[Arg, ...]) -> Unwrapped:
    return _exact(name, rest)


def _env(name: str, rest: tuple[Arg, ...]) -> Unwrapped:
    i = 0
    while i < len(rest):
        word = rest[i]
        if word is None:
            return _not_exact(name, rest)
        if word in ("-i", "--ignore-environment", "-0", "--null", "-"):
            i += 1
        elif word in ("-u", "--unset"):
            i += 2
        elif word.startswith("--unset=") or word == "--":
            i += 1
        elif _ENV_NAME.match(word):
            i += 1
            return _env_assignments(name, rest, i - 1)
        elif word.startswith("-"):
            return _not_exact(name, rest)  # -S splits a string, -C changes folder...
        else:
            break
    return _exact(name, rest[i:]) if i < len(rest) else NOT_A_WRAPPER


def _env_assignments(name: str, rest: tuple[Arg, ...], start: int) -> Unwrapped:
    """`env A=1 B=2 cmd`: the variables change what cmd does, so the unwrap is not exact."""
    i = start
    while i < len(rest) and rest[i] is not None and _ENV_NAME.match(rest[i] or ""):
        i += 1
    if i >= len(rest):
        return NOT_A_WRAPPER
    return Unwrapped(
        inners=(Inner(rest[i:], exact=False, via=name),),
        notes=("`env` sets variables for the command it runs",),
    )


def _nice(name: str, rest: tuple[Arg, ...]) -> Unwrapped:
    if rest and rest[0] is not None and re.fullmatch(r"-\d+", rest[0]):
        rest = rest[1:]
    inner = _skip_options(rest, set(), {"-n"}, {"--adjustment"})
    return _not_exact(name, rest) if inner is None else _exact(name, inner)


def _timeout(name: str, rest: tuple[Arg, ...]) -> Unwrapped:
    inner = _skip_options(
        rest,
        {"-v", "--verbose", "--preserve-status", "--foreground"},
        {"-s", "-k"},
        {"--signal", "--kill-after"},
    )
    if not inner or inner[0] is None or not _DURATION.fullmatch(inner[0]):
        return _not_exact(name, rest)
    return _exact(name, inner[1:])


def _nohup(name: str, rest: tuple[Arg, ...]) -> Unwrapped:
    return _exact(name, rest[1:] if rest[:1] == ("--",) else rest)


def _time(name: str, rest: tuple[Arg, ...]) -> Unwrapped:
    inner = _skip_options(rest, {"-p"}, set())
    return _not_exact(name, rest) if inner is None else _exact(name, inner)


_XARGS_FLAGS = {"-0", "--null", "-r", "--no-run-if-empty", "-t", "--verbose", "-x", "--exit"}
_XARGS_VALUE = {"-d", "-E", "-I", "-L", "-n", "-P", "-s", "-a"}
_XARGS_LONG = {
    "--delimiter", "--eof", "--replace", "--max-lines", "--max-args", "--max-procs",
    "--max-chars", "--arg-file", "--process-slot-var",
}  # fmt: skip


def _xargs(name: str, rest: tuple[Arg, ...]) -> Unwrapped:
    inner = _skip_options(rest, _XARGS_FLAGS, _XARGS_VALUE, _XARGS_LONG)
    if inner is None:
        return _not_exact(name, rest)
    argv = (*(inner or ("echo",)), None)  # the arguments read from input
    return Unwrapped(inners=(Inner(argv, via=name),))


_FIND_EXEC = ("-exec", "-execdir", "-ok", "-okdir")


def _find(name: str, rest: tuple[Arg, ...]) -> Unwrapped:
    inners: list[Inner] = []
    i = 0
    while i < len(rest):
        if rest[i] not in _FIND_EXEC:
            i += 1
            continue
        start = i + 1
        end = start
        while end < len(rest) and rest[end] not in (";", "+"):
            end += 1
        argv = tuple(None if a is not None and "{}" in a else a for a in rest[start:end])
        inners.append(Inner(argv, via=f"find {rest[i]}"))
        i = end + 1
    return Unwrapped(inners=tuple(inners)) if inners else NOT_A_WRAPPER


def _eval(name: str, rest: tuple[Arg, ...]) -> Unwrapped:
    if any(arg is None for arg in rest):
        return Unwrapped(dynamic="`eval` runs text that is not known before the line runs")
    return Unwrapped(script=" ".join(a for a in rest if a is not None), opaque=True)


def _shell(name: str, rest: tuple[Arg, ...]) -> Unwrapped:
    """`bash [-e -u -x -o opt...] -c SCRIPT [args]`; reading stdin is dynamic."""
    i = 0
    while i < len(rest):
        word = rest[i]
        if word is None:
            return Unwrapped(dynamic=f"`{name}` runs a script that is not known before it runs")
        if word == "-c" or (re.fullmatch(r"-[euxvc]+", word) and "c" in word):
            script = rest[i + 1] if i + 1 < len(rest) else None
            if script is None:
                return Unwrapped(dynamic=f"`{name} -c` runs text that is not known before it runs")
            return Unwrapped(script=script)
        if word in ("-o", "+o"):
            i += 2
        elif re.fullmatch(r"[-+][euxv]+", word):
            i += 1
        elif word in ("-s", "-") or not word.startswith("-"):
            break
        else:
            return Unwrapped(dynamic=f"`{name} {word}` is an option agentcli does not model")
    if i < len(rest) and rest[i] not in ("-s", "-"):
        return Unwrapped(opaque=True, notes=(f"`{name}` runs the script file {rest[i]}",))
    return Unwrapped(dynamic=f"`{name}` runs commands from its input, which cannot be checked")


_HANDLERS = {
    "command": _command,
    "builtin": _builtin,
    "env": _env,
    "nice": _nice,
    "timeout": _timeout,
    "nohup": _nohup,
    "time": _time,
    "xargs": _xargs,
    "find": _find,
    "eval": _eval,
}
