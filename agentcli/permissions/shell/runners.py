"""Wrappers that run a command as someone else, somewhere else, or from a string.

Each is read with its real options (options.py), so that what it runs is
found whatever the spelling, and checked by deny and ask rules like any
command of the line:

- as another user: `sudo [opts] [VAR=x] cmd` (`-s`/`-i` with a command pass
  it through the shell unchanged), `su [opts] [-] [user] -c STRING`,
  `runuser -u user cmd` or `-c STRING`, `doas [-u user] cmd`,
  `pkexec cmd`, `sg group -c STRING`;
- elsewhere: `chroot DIR cmd`, `nsenter [opts] cmd`, `unshare [opts] cmd`;
- from a string or with a file of their own: `flock [opts] FILE cmd` or
  `FILE -c STRING`, `watch [opts] cmd...` (joined and run by `sh -c`,
  unless `-x`), `script [opts] -c STRING [FILE]`;
- adding only scheduling: `setsid`, `ionice`, `chrt PRIO`, `taskset MASK`,
  `stdbuf` (a rule for the inner command covers these);
- `busybox APPLET`/`toybox APPLET`: the applet, under a rule for busybox.

All but the scheduling ones need a rule of their own (`needs_own_rule`).
Without a command they start an interactive shell, which reads commands
from its input (`dynamic`). Options not listed here make the wrapper
unmodelled: the line is not understood.
"""

from __future__ import annotations

from agentcli.permissions.shell.options import Arg, parse_options, spec
from agentcli.permissions.shell.unwrapped import (
    NOT_A_WRAPPER,
    Unwrapped,
    exact,
    shell_script,
    skip_assignments,
    unmodelled,
)

_AS_USER = "`{}` runs a command as another user"


def _shell_starts(name: str) -> Unwrapped:
    return Unwrapped(dynamic=f"`{name}` starts a shell that reads its commands from its input")


_SU = spec(
    flags={"-l", "--login", "-m", "-p", "--preserve-environment", "-f", "--fast", "-P", "--pty"},
    values={"-c", "--command", "--session-command", "-s", "--shell", "-g", "--group", "-G",
            "--supp-group", "-w", "--whitelist-environment", "-u", "--user"},
    permute=True,
    dash_is_operand=False,
)  # fmt: skip


def su(name: str, rest: tuple[Arg, ...]) -> Unwrapped:
    """`su`/`runuser`: `-c STRING` runs STRING in the user's shell; `runuser -u U cmd` runs cmd."""
    own = _AS_USER.format(name)
    if name == "runuser" and ("-u" in rest or any((a or "").startswith("--user") for a in rest)):
        return _runuser_command(name, rest, own)
    parsed = parse_options(rest, _SU)
    if parsed is None or parsed.has("-u", "--user"):
        return unmodelled(name, rest)
    command = parsed.value("-c", "--command", "--session-command")
    if not parsed.has("-c", "--command", "--session-command"):
        return _shell_starts(name)
    login = parsed.has("-", "-l", "--login")  # a login shell starts in the user's home
    return shell_script(name, command, own_rule=own, elsewhere=login)


def _runuser_command(name: str, rest: tuple[Arg, ...], own: str) -> Unwrapped:
    parsed = parse_options(rest, spec(_SU.flags, _SU.values))
    if parsed is None or parsed.has("-c", "--command", "--session-command", "-s", "--shell"):
        return unmodelled(name, rest)
    if not parsed.operands:
        return _shell_starts(name)
    return exact(name, tuple(parsed.operands), own_rule=own, elsewhere=parsed.has("-l", "--login"))


_SUDO = spec(
    flags={"-A", "--askpass", "-b", "--background", "-E", "-H", "--set-home", "-i", "--login",
           "-K", "--remove-timestamp", "-k", "--reset-timestamp", "-l", "--list", "-n",
           "--non-interactive", "-P", "--preserve-groups", "-S", "--stdin", "-s", "--shell",
           "-V", "--version", "-v", "--validate", "-e", "--edit", "-N", "--no-update",
           "-B", "--bell"},
    values={"-C", "--close-from", "-D", "--chdir", "-g", "--group", "-h", "--host", "-p",
            "--prompt", "-R", "--chroot", "-r", "--role", "-t", "--type", "-T",
            "--command-timeout", "-U", "--other-user", "-u", "--user"},
    optional={"--preserve-env"},
)  # fmt: skip


def sudo(name: str, rest: tuple[Arg, ...]) -> Unwrapped:
    parsed = parse_options(rest, _SUDO)
    own = _AS_USER.format(name)
    if parsed is None:
        return unmodelled(name, rest)
    command = skip_assignments(tuple(parsed.operands))
    if parsed.has("-e", "--edit"):
        return Unwrapped(needs_own_rule=f"`{name} -e` edits files as another user")
    if parsed.has("-l", "--list", "-v", "--validate", "-k", "-K", "-V", "--version"):
        return Unwrapped(needs_own_rule=own)  # lists or checks; runs nothing
    if not command:
        return (
            _shell_starts(name)
            if parsed.has("-s", "--shell", "-i", "--login")
            else (Unwrapped(needs_own_rule=own))
        )
    # With -s/-i sudo passes the command to the shell with every special character
    # escaped: it still runs exactly these words (-i, -D and -R in another folder).
    moved = parsed.has("-i", "--login", "-D", "--chdir", "-R", "--chroot")
    return exact(name, command, own_rule=own, elsewhere=moved)


_DOAS = spec(flags={"-L", "-n", "-s"}, values={"-u", "-C"})


def doas(name: str, rest: tuple[Arg, ...]) -> Unwrapped:
    parsed = parse_options(rest, _DOAS)
    if parsed is None:
        return unmodelled(name, rest)
    if parsed.has("-C", "-L"):
        return Unwrapped(needs_own_rule=_AS_USER.format(name))
    if not parsed.operands:
        return _shell_starts(name)
    return exact(name, tuple(parsed.operands), own_rule=_AS_USER.format(name))


_PKEXEC = spec(flags={"--disable-internal-agent", "--keep-cwd"}, values={"--user"})


def pkexec(name: str, rest: tuple[Arg, ...]) -> Unwrapped:
    parsed = parse_options(rest, _PKEXEC)
    if parsed is None:
        return unmodelled(name, rest)
    if not parsed.operands:
        return _shell_starts(name)
    moved = not parsed.has("--keep-cwd")  # pkexec starts the program in /
    return exact(name, tuple(parsed.operands), own_rule=_AS_USER.format(name), elsewhere=moved)


def sg(name: str, rest: tuple[Arg, ...]) -> Unwrapped:
    """`sg [-] GROUP [-c] COMMAND`: COMMAND (one string) runs through /bin/sh -c."""
    words = list(rest[1:] if rest[:1] == ("-",) else rest)
    if not words:
        return _shell_starts(name)
    words = words[1:]  # the group
    if words[:1] == ["-c"]:
        words = words[1:]
    if len(words) != 1:
        return unmodelled(name, rest) if words else _shell_starts(name)
    return shell_script(name, words[0], own_rule=f"`{name}` runs a command with another group")


_CHROOT = spec(flags={"--skip-chdir"}, values={"--userspec", "--groups"})


def chroot(name: str, rest: tuple[Arg, ...]) -> Unwrapped:
    parsed = parse_options(rest, _CHROOT)
    if parsed is None or not parsed.operands:
        return unmodelled(name, rest)
    command = tuple(parsed.operands[1:])
    if not command:
        return _shell_starts(name)
    own = f"`{name}` runs the command with another root folder"
    return exact(name, command, own_rule=own, elsewhere=True)


_NSENTER = spec(
    flags={"-a", "--all", "-F", "--no-fork", "-Z", "--follow-context", "--preserve-credentials",
           "-c", "--join-cgroup"},
    values={"-t", "--target", "-S", "--setuid", "-G", "--setgid"},
    optional={"-m", "--mount", "-u", "--uts", "-i", "--ipc", "-n", "--net", "-p", "--pid", "-U",
              "--user", "-C", "--cgroup", "-T", "--time", "-r", "--root", "-w", "--wd"},
)  # fmt: skip
_UNSHARE = spec(
    flags={"-m", "-u", "-i", "-n", "-p", "-U", "-C", "-T", "-f", "--fork", "-r",
           "--map-root-user", "-c", "--map-current-user", "--map-auto", "-l", "--load-interp"},
    values={"--propagation", "--setgroups", "-R", "--root", "-w", "--wd", "-S", "--setuid",
            "-G", "--setgid", "--map-user", "--map-group", "--map-users", "--map-groups",
            "--monotonic", "--boottime"},
    optional={"--mount", "--uts", "--ipc", "--net", "--pid", "--user", "--cgroup", "--time",
              "--mount-proc", "--kill-child", "--mount-binfmt"},
)  # fmt: skip


def namespaces(name: str, rest: tuple[Arg, ...]) -> Unwrapped:
    """`nsenter`/`unshare`: the command runs in other namespaces (what it sees differs)."""
    parsed = parse_options(rest, _NSENTER if name == "nsenter" else _UNSHARE)
    if parsed is None:
        return unmodelled(name, rest)
    if not parsed.operands:
        return _shell_starts(name)
    own = f"`{name}` runs the command in other namespaces"
    moved = name == "nsenter" or parsed.has("-R", "--root", "-w", "--wd")
    return exact(name, tuple(parsed.operands), own_rule=own, elsewhere=moved)


_FLOCK = spec(
    flags={"-s", "--shared", "-x", "-e", "--exclusive", "-u", "--unlock", "-n", "--nb",
           "--nonblock", "-o", "--close", "-F", "--no-fork", "--verbose"},
    values={"-w", "--wait", "--timeout", "-E", "--conflict-exit-code"},
)  # fmt: skip


def flock(name: str, rest: tuple[Arg, ...]) -> Unwrapped:
    """`flock FILE cmd...`, `flock FILE -c STRING`, `flock FD` (runs nothing)."""
    parsed = parse_options(rest, _FLOCK)
    if parsed is None or not parsed.operands:
        return unmodelled(name, rest)
    lock, after = parsed.operands[0], tuple(parsed.operands[1:])
    own = f"`{name}` opens (and may create) the lock file {lock or '…'}"
    if not after:
        return Unwrapped(needs_own_rule=own)
    if after[0] in ("-c", "--command"):
        return shell_script(name, after[1] if len(after) == 2 else None, own_rule=own)
    return exact(name, after, own_rule=own)


_WATCH = spec(
    flags={"-b", "--beep", "-c", "--color", "-C", "--no-color", "-e", "--errexit", "-g",
           "--chgexit", "-p", "--precise", "-t", "--no-title", "-w", "--no-wrap", "-x", "--exec",
           "-r", "--no-rerun", "-f", "--follow"},
    values={"-n", "--interval", "-q", "--equexit", "-s", "--shotsdir"},
    optional={"-d", "--differences"},
)  # fmt: skip


def watch(name: str, rest: tuple[Arg, ...]) -> Unwrapped:
    """`watch cmd args`: the words are joined with spaces and run by `sh -c` (`-x`: as they are)."""
    parsed = parse_options(rest, _WATCH)
    if parsed is None or not parsed.operands:
        return unmodelled(name, rest)
    if parsed.has("-x", "--exec"):
        return exact(name, tuple(parsed.operands))
    if any(word is None for word in parsed.operands):
        return shell_script(name, None)
    return shell_script(name, " ".join(w for w in parsed.operands if w is not None))


_SCRIPT = spec(
    flags={"-a", "--append", "-e", "--return", "-f", "--flush", "-q", "--quiet"},
    values={"-c", "--command", "-E", "--echo", "-I", "--log-in", "-O", "--log-out", "-B",
            "--log-io", "-T", "--log-timing", "-m", "--logging-format", "-o", "--output-limit"},
    optional={"-t", "--timing"},
    permute=True,
)  # fmt: skip


def script(name: str, rest: tuple[Arg, ...]) -> Unwrapped:
    parsed = parse_options(rest, _SCRIPT)
    if parsed is None:
        return unmodelled(name, rest)
    if not parsed.has("-c", "--command"):
        return _shell_starts(name)
    log = parsed.operands[0] if parsed.operands else "typescript"
    own = f"`{name}` writes what the command shows to a file ({log or '…'})"
    return shell_script(name, parsed.value("-c", "--command"), own_rule=own)


_PIDS = ("-p", "--pid", "-P", "--pgid", "-u", "--uid", "-m", "--max")  # act on a running process
_SETSID = spec(flags={"-c", "--ctty", "-f", "--fork", "-w", "--wait"})
_IONICE = spec(
    flags={"-t", "--ignore", "-p", "--pid", "-P", "--pgid", "-u", "--uid"},
    values={"-c", "--class", "-n", "--classdata"},
)
_CHRT = spec(
    flags={"-a", "--all-tasks", "-R", "--reset-on-fork", "-v", "--verbose", "-b", "--batch",
           "-d", "--deadline", "-f", "--fifo", "-i", "--idle", "-o", "--other", "-r", "--rr",
           "-p", "--pid", "-m", "--max"},
    values={"-T", "--sched-runtime", "-P", "--sched-period", "-D", "--sched-deadline"},
)  # fmt: skip
_TASKSET = spec(flags={"-a", "--all-tasks", "-c", "--cpu-list", "-p", "--pid"})
_STDBUF = spec(values={"-i", "--input", "-o", "--output", "-e", "--error"})
_SCHEDULING = {"setsid": _SETSID, "ionice": _IONICE, "chrt": _CHRT, "taskset": _TASKSET}


def scheduling(name: str, rest: tuple[Arg, ...]) -> Unwrapped:
    """`setsid`, `ionice`, `chrt PRIO`, `taskset MASK`, `stdbuf`: they change how it is run."""
    parsed = parse_options(rest, _SCHEDULING.get(name, _STDBUF))
    if parsed is None:
        return unmodelled(name, rest)
    if parsed.has(*_PIDS) and name != "setsid":
        return NOT_A_WRAPPER  # it changes a running process; it runs nothing
    command = tuple(parsed.operands)
    if name in ("chrt", "taskset"):
        if not command or command[0] is None:
            return unmodelled(name, rest)
        command = command[1:]  # the priority or the CPU mask
    return exact(name, command)


def multicall(name: str, rest: tuple[Arg, ...]) -> Unwrapped:
    """`busybox APPLET args`: the applet (busybox's own version of it)."""
    if not rest or rest[0] is None or rest[0].startswith("-"):
        return unmodelled(name, rest) if rest and rest[0] is None else NOT_A_WRAPPER
    return exact(name, rest, own_rule=f"`{name}` runs its own version of `{rest[0]}`")


HANDLERS = {
    "su": su,
    "runuser": su,
    "sudo": sudo,
    "doas": doas,
    "pkexec": pkexec,
    "sg": sg,
    "chroot": chroot,
    "nsenter": namespaces,
    "unshare": namespaces,
    "flock": flock,
    "watch": watch,
    "script": script,
    "setsid": scheduling,
    "ionice": scheduling,
    "chrt": scheduling,
    "taskset": scheduling,
    "stdbuf": scheduling,
    "busybox": multicall,
    "toybox": multicall,
}
