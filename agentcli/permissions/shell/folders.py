"""What earlier commands of a line change for later ones: the folder, and variables.

`cd` and `pushd` move the shell (bash's logical `cd`: `..` is removed from
the text before links are followed; `cd -P` follows links first). When one
of several paths may have run (`a && cd x`, a branch, a loop), the folders
they leave are all kept, up to a few, and a variable they disagree on is no
longer known.
"""

from __future__ import annotations

import os
from pathlib import Path

from agentcli.permissions.shell.words import Scope
from agentcli.permissions.shell.wrappers import Arg

MAX_CWDS = 8


def cd_target(args: tuple[Arg, ...], scope: Scope) -> tuple[Path, ...] | None:
    """Where `cd ARGS` leaves the shell, as bash's logical `cd` computes it."""
    physical = False
    while args and args[0] in ("-L", "-P", "--"):
        physical = physical or args[0] == "-P"
        done = args[0] == "--"
        args = args[1:]
        if done:
            break
    if len(args) > 1 or (
        args and (args[0] is None or args[0] in ("-",) or args[0].startswith("-"))
    ):
        return None
    if args:
        target = args[0]
        if target is None:  # checked above; said again for the type checker
            return None
    else:
        home, _ = scope.lookup("HOME")
        if home is None:
            return None
        target = home
    if scope.cwds is None:
        return None
    if (
        scope.env.get("CDPATH")
        and not target.startswith(("/", "./", "../"))
        and target not in (".", "..")
    ):
        return None
    out = []
    for cwd in scope.cwds:
        joined = os.path.join(cwd, target)
        # Logical by default: bash removes `..` from the text before following links.
        out.append(Path(os.path.realpath(joined) if physical else os.path.normpath(joined)))
    return tuple(dict.fromkeys(out))


def copy_scope(scope: Scope) -> Scope:
    return Scope(
        scope.env, dict(scope.line_vars), scope.cwds, scope.positional_known, scope.env_complete
    )


def merge_scopes(first: Scope, *others: Scope) -> Scope:
    """The scope after one of several paths ran: what differs is no longer known."""
    merged = copy_scope(first)
    for other in others:
        if merged.cwds is None or other.cwds is None:
            merged.cwds = None
        else:
            union = tuple(dict.fromkeys(merged.cwds + other.cwds))
            merged.cwds = union if len(union) <= MAX_CWDS else None
        for name in set(merged.line_vars) | set(other.line_vars):
            mine = merged.line_vars.get(name, merged.lookup(name)[0])
            theirs = other.line_vars.get(name, other.lookup(name)[0])
            merged.line_vars[name] = mine if mine == theirs else None
    return merged
