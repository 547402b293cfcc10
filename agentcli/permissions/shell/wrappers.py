"""Commands that run other commands: what they run, and whether we can tell exactly.

`timeout 5 rm x` runs `rm x`; so do `command rm x`, `env A=1 rm x`,
`nice -n 5 rm x`, `nohup rm x`, `time rm x`, `sudo rm x`, `xargs rm`,
`find . -exec rm {} \\;`, `bash -c 'rm x'`, `su -c 'rm x'` and `watch rm x`.
Deny and ask rules must see the inner command, and an allow rule for the
inner command should cover the wrapper when the wrapper itself adds nothing
(a timeout, a priority).

For each wrapper we know the options exactly (options.py): here the ones
that add nothing or little, in runners.py those that run a command as
another user, elsewhere or from a string, in shells.py `sh -c` and its
spellings. When an option is not one we know, or a word is not known before
the line runs, the wrapper is unmodelled (unwrapped.py): an allow rule for
the inner command does not vouch for the line, every later word is tried as
the start of a command for deny and ask rules (`ionice -c 3 rm x` still meets
`Bash(rm:*)`), and the line is not understood. A program not listed at all
is not a wrapper: it is judged as itself.

`eval` is not understood (its text is still searched for denied commands).
"""

from __future__ import annotations

import re

from agentcli.permissions.shell.options import Arg, parse_options, spec
from agentcli.permissions.shell.runners import HANDLERS as RUNNERS
from agentcli.permissions.shell.shells import SHELLS, shell
from agentcli.permissions.shell.unwrapped import (
    NOT_A_WRAPPER,
    Inner,
    Unwrapped,
    exact,
    skip_assignments,
    unmodelled,
)

__all__ = ["NOT_A_WRAPPER", "SHELLS", "Arg", "Inner", "Unwrapped", "unwrap"]

# Programs that run a command given in their arguments and whose options are not
# modelled: only the deny and ask side looks inside, and the line is not understood.
_GENERIC = frozenset(
    {
        "strace", "ltrace", "parallel", "caffeinate", "systemd-run", "firejail", "proot",
        "fakeroot", "torsocks", "proxychains", "proxychains4", "catchsegv", "valgrind", "gdb",
        "retry", "exec", "coproc", "then", "do", "unbuffer", "setpriv", "prlimit", "numactl",
        "cpulimit", "nocache", "eatmydata", "chpst", "softlimit", "envdir", "setuidgid", "tini",
        "dumb-init", "su-exec", "gosu", "capsh", "bwrap", "flatpak-spawn", "sshpass",
        "daemonize", "start-stop-daemon", "xvfb-run", "dbus-run-session", "ssh-agent",
        "faketime", "sandbox-exec", "nix-shell", "time-limit", "sem", "pwsh", "powershell",
        "cmd", "busybox-sh",
    }
)  # fmt: skip
_DURATION = re.compile(r"\d+(\.\d+)?[smhd]?")


def unwrap(argv: tuple[Arg, ...]) -> Unwrapped:
    """What `argv` runs, if its first word is a wrapper; NOT_A_WRAPPER otherwise."""
    if not argv or argv[0] is None:
        return NOT_A_WRAPPER
    name = argv[0].rsplit("/", 1)[-1]
    rest = argv[1:]
    handler = _HANDLERS.get(name) or RUNNERS.get(name)
    if handler is not None:
        return handler(name, rest)
    if name in SHELLS:
        return shell(name, rest)
    if name in _GENERIC:
        return unmodelled(name, rest)
    return NOT_A_WRAPPER


def _command(name: str, rest: tuple[Arg, ...]) -> Unwrapped:
    parsed = parse_options(rest, spec(flags={"-p", "-v", "-V"}))
    if parsed is None:
        return unmodelled(name, rest)
    if parsed.has("-v", "-V"):
        return NOT_A_WRAPPER  # it only looks a command up
    return exact(name, tuple(parsed.operands))


def _builtin(name: str, rest: tuple[Arg, ...]) -> Unwrapped:
    return exact(name, rest)


_ENV = spec(
    flags={"-i", "--ignore-environment", "-0", "--null", "-v", "--debug",
           "--list-signal-handling"},
    values={"-u", "--unset", "-C", "--chdir", "-S", "--split-string"},
    optional={"--block-signal", "--default-signal", "--ignore-signal"},
)  # fmt: skip


def _env(name: str, rest: tuple[Arg, ...]) -> Unwrapped:
    """`env [opts] [VAR=x...] cmd`. `-S STRING` splits STRING into more words, `-C DIR`
    runs cmd in DIR: cmd is then seen by deny and ask rules, and needs a rule for env."""
    words = tuple("-i" if w == "-" else w for w in rest)
    parsed = parse_options(words, _ENV)
    if parsed is None:
        return unmodelled(name, rest)
    operands = tuple(parsed.operands)
    if parsed.has("-S", "--split-string"):
        split = parsed.value("-S", "--split-string")
        if split is None or any(w is None for w in operands):
            return Unwrapped(dynamic="`env -S` runs a string that is not known before it runs")
        text = " ".join([split, *(w for w in operands if w is not None)])
        return Unwrapped(script=text, needs_own_rule="`env -S` splits a string into a command")
    command = skip_assignments(operands)
    if not command:
        return NOT_A_WRAPPER  # it prints the environment
    if parsed.has("-C", "--chdir"):
        own = "`env -C` runs the command in another folder"
        return exact(name, command, own_rule=own, elsewhere=True)
    if len(command) < len(operands):
        # The variables change what the command does: the unwrap is not exact.
        return Unwrapped(
            inners=(Inner(command, exact=False, via=name),),
            notes=("`env` sets variables for the command it runs",),
        )
    return exact(name, command)


def _nice(name: str, rest: tuple[Arg, ...]) -> Unwrapped:
    if rest and rest[0] is not None and re.fullmatch(r"-\d+", rest[0]):
        rest = rest[1:]
    parsed = parse_options(rest, spec(values={"-n", "--adjustment"}))
    return unmodelled(name, rest) if parsed is None else exact(name, tuple(parsed.operands))


_TIMEOUT = spec(
    flags={"-v", "--verbose", "--preserve-status", "--foreground"},
    values={"-s", "--signal", "-k", "--kill-after"},
)


def _timeout(name: str, rest: tuple[Arg, ...]) -> Unwrapped:
    parsed = parse_options(rest, _TIMEOUT)
    operands = tuple(parsed.operands) if parsed is not None else ()
    if not operands or operands[0] is None or not _DURATION.fullmatch(operands[0]):
        return unmodelled(name, rest)
    return exact(name, operands[1:])


def _nohup(name: str, rest: tuple[Arg, ...]) -> Unwrapped:
    return exact(name, rest[1:] if rest[:1] == ("--",) else rest)


def _time(name: str, rest: tuple[Arg, ...]) -> Unwrapped:
    parsed = parse_options(rest, spec(flags={"-p"}))
    return unmodelled(name, rest) if parsed is None else exact(name, tuple(parsed.operands))


_XARGS = spec(
    flags={"-0", "--null", "-r", "--no-run-if-empty", "-t", "--verbose", "-x", "--exit", "-o",
           "--open-tty", "-p", "--interactive"},
    values={"-d", "--delimiter", "-E", "-I", "-L", "--max-lines", "-n", "--max-args", "-P",
            "--max-procs", "-s", "--max-chars", "-a", "--arg-file", "--process-slot-var"},
    optional={"-e", "--eof", "-i", "--replace", "-l"},
)  # fmt: skip


def _xargs(name: str, rest: tuple[Arg, ...]) -> Unwrapped:
    parsed = parse_options(rest, _XARGS)
    if parsed is None:
        return unmodelled(name, rest)
    command = tuple(parsed.operands) or ("echo",)
    if command[0] is None:
        return Unwrapped(dynamic="`xargs` runs a command that is not known before it runs")
    argv = (*command, None)  # the arguments read from input
    own = "`xargs -a` reads its arguments from a file" if parsed.has("-a", "--arg-file") else None
    return Unwrapped(inners=(Inner(argv, via=name),), needs_own_rule=own)


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
