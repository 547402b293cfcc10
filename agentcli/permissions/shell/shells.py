"""`sh -c SCRIPT` and its spellings: which shell options leave the script's meaning ours.

`bash -c 'rm x'`, `bash -lc`, `sh -ec`, `bash -euo pipefail -c`, `bash --norc
-c`, `dash -c -x 'script'` (the script is the first word that is not an
option, wherever `-c` stands) all run SCRIPT, which is parsed and analysed
like the line itself. Options that only change error handling, tracing or
which start-up files run are fine; options that change how the script is
read are not modelled, and the line is not understood: `-f`/`noglob`,
`+B` (no braces), `-k` (assignments anywhere), `-a` (export all), `-P`
(physical `cd`), `-H`, `-n`, `-O`/`+O` (shopt: `dotglob` makes `*` match
`.env`), `--posix`, `--rcfile`/`--init-file`.

Only bash-like shells are read as bash (sh, bash, dash, ash, rbash): a zsh,
ksh, fish or csh script means something else in places (zsh's glob
qualifiers and `=cmd` run code), so their scripts are parsed for deny and
ask rules only, and the shell needs a rule of its own.
"""

from __future__ import annotations

import re

from agentcli.permissions.shell.options import Arg
from agentcli.permissions.shell.unwrapped import Unwrapped

BASH_LIKE = frozenset({"sh", "bash", "dash", "ash", "rbash"})
OTHER_SHELLS = frozenset(
    {
        "zsh",
        "ksh",
        "ksh93",
        "mksh",
        "pdksh",
        "oksh",
        "loksh",
        "lksh",
        "yash",
        "posh",
        "fish",
        "csh",
        "tcsh",
        "rc",
        "es",
        "elvish",
        "nu",
        "xonsh",
        "osh",
        "ysh",
        "oil",
        "ion",
        "hush",
    }
)
SHELLS = BASH_LIKE | OTHER_SHELLS
# Single-letter options that do not change how a script is read or what it runs.
_HARMLESS_LETTERS = set("eEuxvhmbBCtTpril")  # `B`: brace expansion on (the default)
_HARMLESS_NAMES = frozenset(
    {"errexit", "nounset", "xtrace", "pipefail", "verbose", "noclobber", "hashall", "monitor",
     "notify", "errtrace", "functrace", "privileged", "braceexpand", "ignoreeof", "interactive-comments"}
)  # fmt: skip
_HARMLESS_LONG = frozenset(
    {"--login", "--noprofile", "--norc", "--noediting", "--restricted", "--verbose"}
)


def shell(name: str, rest: tuple[Arg, ...]) -> Unwrapped:
    """`bash [options] -c SCRIPT [args]`; reading stdin is dynamic; `bash file` is opaque."""
    with_c = False
    operand: Arg = None
    has_operand = False
    i = 0
    while i < len(rest):
        word = rest[i]
        if word is None:
            return Unwrapped(dynamic=f"`{name}` gets words that are not known before it runs")
        if word in ("--", "-"):
            if i + 1 < len(rest):
                operand, has_operand = rest[i + 1], True
            break
        if word.startswith("--"):
            if word not in _HARMLESS_LONG:
                return _not_modelled(name, word)
            i += 1
            continue
        if word[0] in "-+" and len(word) > 1:
            step = _cluster(rest, i)
            if step is None:
                return _not_modelled(name, word)
            with_c = with_c or (word[0] == "-" and "c" in word)
            i += step
            continue
        operand, has_operand = word, True
        break
    if with_c:
        if not has_operand or operand is None:
            return Unwrapped(dynamic=f"`{name} -c` runs text that is not known before it runs")
        if name in OTHER_SHELLS:
            return Unwrapped(
                script=operand, needs_own_rule=f"`{name}` reads a script differently from bash"
            )
        return Unwrapped(script=operand)
    if has_operand and operand not in (None, "-s"):
        return Unwrapped(opaque=True, notes=(f"`{name}` runs the script file {operand}",))
    return Unwrapped(dynamic=f"`{name}` runs commands from its input, which cannot be checked")


def _cluster(rest: tuple[Arg, ...], i: int) -> int | None:
    """`-euo pipefail`, `-lc`, `+x`: how many words the cluster takes; None if not modelled."""
    word = rest[i] or ""
    letters = word[1:]
    takes = 1
    for letter in letters:
        if letter == "c" and word[0] == "-":
            continue
        if letter == "s" and word[0] == "-":
            continue  # read from input: decided by the missing -c
        if letter == "o":
            value = rest[i + takes] if i + takes < len(rest) else None
            if value is None or value not in _HARMLESS_NAMES:
                return None
            takes += 1
            continue
        if letter == "B" and word[0] == "+":
            return None  # no brace expansion: `{a,b}` stays one word
        if letter not in _HARMLESS_LETTERS or not re.fullmatch(r"[A-Za-z]", letter):
            return None
    return takes


def _not_modelled(name: str, word: str) -> Unwrapped:
    return Unwrapped(dynamic=f"`{name} {word}` is an option agentcli does not model")
