"""Words that a program runs as a shell command: `GIT_PAGER='rm x' git log`.

Some variables and configuration keys hold a command the program runs
through the shell: `PAGER`, `GIT_PAGER`, `EDITOR`, `GIT_SSH_COMMAND`,
`LESSOPEN`... set in front of a command, and git's `-c core.pager=...`,
`-c alias.x='!...'`, `-c core.fsmonitor=...`, `-c diff.external=...`, and
`git config KEY VALUE` for such a key (it runs on a later git command). Their
values are parsed like a `sh -c` script, so that deny and ask rules see the
commands in them (and, under the sandbox, what those commands name). They
never make a line allowed: setting such a variable already needs a rule
(judge.py), and `git -c` is not read-only.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from agentcli.permissions.shell.options import Arg
from agentcli.permissions.shell.words import Word

COMMAND_VARIABLES = frozenset(
    {"PAGER", "GIT_PAGER", "MANPAGER", "SYSTEMD_PAGER", "EDITOR", "VISUAL", "GIT_EDITOR",
     "GIT_SEQUENCE_EDITOR", "GIT_SSH_COMMAND", "GIT_SSH", "GIT_EXTERNAL_DIFF", "GIT_ASKPASS",
     "SSH_ASKPASS", "SUDO_ASKPASS", "LESSOPEN", "LESSCLOSE", "BROWSER", "PROMPT_COMMAND",
     "FCEDIT", "RSYNC_RSH", "CVS_RSH", "SVN_SSH", "GIT_PROXY_COMMAND"}
)  # fmt: skip
_GIT_COMMAND_KEYS = re.compile(
    r"alias\..+|core\.(pager|editor|sshcommand|fsmonitor|askpass|gitproxy)|pager\..+|"
    r"diff\.(external|.+\.(textconv|command))|difftool\..+\.cmd|mergetool\..+\.cmd|"
    r"merge\..+\.driver|filter\..+\.(clean|smudge|process)|credential(\..+)?\.helper|"
    r"sequence\.editor|gpg(\..+)?\.program|interactive\.difffilter|"
    r"remote\..+\.(uploadpack|receivepack|proxy)|uploadpack\.packobjectshook|"
    r"http\.proxy|ssh\.variant|web\.browser|browser\..+\.cmd|man\..+\.cmd|"
    r"sendemail\.(smtpserver|tocmd|cccmd)|include\.path|includeif\..+\.path",
    re.IGNORECASE,
)


def command_strings(argv: Sequence[Arg], assignments: Sequence[tuple[str, Word]]) -> Iterator[str]:
    """The values of this command that its program runs as shell commands."""
    for name, word in assignments:
        if name in COMMAND_VARIABLES:
            yield from (value.lstrip("|") for value in word.values or ())
    if argv and argv[0] is not None and argv[0].rsplit("/", 1)[-1] == "git":
        yield from _git_config_commands(argv[1:])


_CONFIG_VALUE_OPTIONS = frozenset({"-f", "--file", "--blob", "--type", "--default", "--comment"})


def _git_config_commands(args: Sequence[Arg]) -> Iterator[str]:
    i = 0
    while i < len(args):
        word = args[i]
        if word is None or word == "--":
            return
        if not word.startswith("-"):
            if word == "config":  # `git config KEY VALUE`: runs on a later git command
                yield from _config_set(args[i + 1 :])
            return  # the subcommand: global options end here
        setting = None
        if word == "-c" and i + 1 < len(args):
            setting = args[i + 1]
            i += 1
        elif word.startswith("-c") and len(word) > 2:
            setting = word[2:]
        i += 1
        if setting is None:
            continue
        key, _, value = setting.partition("=")
        if _GIT_COMMAND_KEYS.fullmatch(key) and value:
            yield value[1:] if value.startswith("!") else value


def _config_set(args: Sequence[Arg]) -> Iterator[str]:
    positional: list[Arg] = []
    skip = False
    for word in args:
        if skip:
            skip = False
        elif word is not None and word.startswith("-"):
            skip = word in _CONFIG_VALUE_OPTIONS
        else:
            positional.append(word)
    if positional and positional[0] == "set":
        positional = positional[1:]
    if len(positional) >= 2 and positional[0] is not None and positional[1] is not None:
        key, value = positional[0], positional[1]
        if _GIT_COMMAND_KEYS.fullmatch(key) and value:
            yield value[1:] if value.startswith("!") else value
