"""The rule a "yes, for this session" (or "always") answer adds for one command.

Narrow enough that it cannot stand for "run anything", broad enough not to
ask again for the same kind of call. As Claude Code does:

- a command whose second word looks like a subcommand (`git diff`,
  `npm test`, `cargo build`): that prefix (`Bash(git diff:*)`);
- a program that runs code it is given, where a prefix would allow any code:
  interpreters (`python3`, `node`, `ruby`, `perl`...), shells, wrappers that
  run their arguments as a command (`env`, `xargs`, `timeout`, `sudo`...),
  package runners (`npx`, `uvx`, `uv run`, `npm exec`, `go run`, `docker run`
  ...): the exact command (`Bash(python3 build.py --fast)`);
- a command from the read-only list that only needs asking because of where
  it reads (`cat ../other/x`): its name (`Bash(cat:*)`); it cannot run code,
  and protected files still ask;
- anything else: the exact command.

No rule when a word is not known before the line runs and the prefix does
not stop before it (an exact rule would name words nobody has seen).
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence

from agentcli.permissions.shell.options import Arg
from agentcli.permissions.shell.readonly_commands import SIMPLE_COMMANDS

SUBCOMMAND = re.compile(r"[a-z][a-z0-9]*(?:-[a-z0-9]+)*")
_INTERPRETER = re.compile(
    r"(?:python|pypy|ruby|perl|php|lua|luajit|node|nodejs|deno|bun|bunx|Rscript|julia|"
    r"tclsh|wish|osascript|java|jshell|groovy|scala|kotlin|swift|elixir|erl|escript|"
    r"guile|racket|sbcl|clisp|ocaml|ghci|runghc|awk|gawk|mawk|nawk|expect)[0-9.]*"
)
RUNS_ITS_ARGUMENTS = frozenset(
    {"sh", "bash", "zsh", "dash", "ksh", "fish", "csh", "tcsh", "ash", "pwsh", "powershell",
     "cmd", "env", "xargs", "nice", "stdbuf", "nohup", "timeout", "time", "sudo", "doas",
     "pkexec", "su", "runuser", "sg", "setsid", "chroot", "nsenter", "unshare", "flock",
     "watch", "script", "ionice", "chrt", "taskset", "busybox", "toybox", "npx", "pnpx",
     "uvx", "pipx", "eval", "exec", "command", "builtin", "parallel", "strace", "ltrace",
     "gdb", "valgrind", "ssh", "find", "gosu", "su-exec", "fakeroot", "unbuffer"}
)  # fmt: skip
# Subcommands that run code given on the command line or any program or package.
RUNS_ITS_ARGUMENTS_AFTER = frozenset(
    {("uv", "run"), ("uv", "tool"), ("npm", "exec"), ("npm", "x"), ("pnpm", "exec"),
     ("pnpm", "dlx"), ("yarn", "dlx"), ("yarn", "exec"), ("bun", "x"), ("bun", "run"),
     ("deno", "run"), ("deno", "eval"), ("go", "run"), ("poetry", "run"), ("pdm", "run"),
     ("pipenv", "run"), ("conda", "run"), ("hatch", "run"), ("rye", "run"), ("pipx", "run"),
     ("docker", "run"), ("docker", "exec"), ("podman", "run"), ("podman", "exec"),
     ("kubectl", "exec"), ("nix", "run"), ("nix", "shell"), ("gem", "exec"),
     ("bundle", "exec"), ("stack", "exec"), ("cabal", "exec"), ("git", "submodule"),
     ("mise", "exec"), ("asdf", "exec"), ("direnv", "exec"), ("dotnet", "exec")}
)  # fmt: skip


def runs_any_code(argv: Sequence[Arg]) -> bool:
    """Would a prefix rule for this command's first words allow running any code?"""
    name = (argv[0] or "").rsplit("/", 1)[-1] if argv else ""
    if name in RUNS_ITS_ARGUMENTS or _INTERPRETER.fullmatch(name):
        return True
    second = argv[1] if len(argv) > 1 else None
    return second is not None and (name, second) in RUNS_ITS_ARGUMENTS_AFTER


def suggest_rule(argv: Sequence[Arg]) -> str | None:
    """The specifier to allow one command by (see the module's docstring), or None."""
    if not argv or argv[0] is None:
        return None
    name = argv[0]
    exact = shlex.join([a for a in argv if a is not None]) if None not in argv else None
    if runs_any_code(argv):
        return exact
    second = argv[1] if len(argv) > 1 else None
    if second is not None and SUBCOMMAND.fullmatch(second):
        return shlex.join([name, second]) + ":*"
    if name.rsplit("/", 1)[-1] in SIMPLE_COMMANDS:
        return shlex.join([name]) + ":*"
    return exact
