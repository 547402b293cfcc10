"""Is a whole Bash line allowed by the allow rules and the built-in read-only list?

Every simple command of the line must be allowed on its own, either by an
allow rule or because it is read-only (the Bash tool's list, see
agentcli/tools/readonly_commands.py) and only names paths inside the
project. A part that substitutes commands, uses syntax we do not model, sets
variables in front of the command, or redirects to a file outside the project
is never allowed this way.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path

from agentcli.permissions.bash_lexer import Part, is_fd_duplication
from agentcli.permissions.bash_rules import (
    command_words,
    matches_specifier,
    redirects_stay_inside,
    split_for_allow,
)
from agentcli.permissions.path_rules import real_path
from agentcli.permissions.special_paths import special_path_reason
from agentcli.tools.base import Workspace
from agentcli.tools.readonly_commands import is_read_only_command

_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_QUIET_TARGETS = frozenset({"/dev/null"})


@dataclass(frozen=True, slots=True)
class LineVerdict:
    allowed: bool
    read_only: bool  # every part is read-only (allowed without any rule)
    reason: str
    rule: str | None = None
    unallowed: tuple[tuple[str, ...], ...] = ()  # the words of each part not allowed


def check_line(command: str, allow_specs: list[str], workspace: Workspace) -> LineVerdict:
    parts = split_for_allow(command)
    if parts is None:
        return LineVerdict(False, False, "the command could not be parsed safely")
    used_rules: list[str] = []
    all_read_only = True
    first_problem: str | None = None
    unallowed: list[tuple[str, ...]] = []
    for part in parts:
        problem = _structural_problem(part, workspace)
        words = command_words(part)
        read_only = problem is None and part_is_read_only(part, words, workspace)
        all_read_only = all_read_only and read_only
        if read_only:
            continue
        spec = None
        if problem is None:
            spec = next((s for s in allow_specs if matches_specifier(s, words)), None)
        if spec is not None:
            used_rules.append(spec)
            continue
        unallowed.append(tuple(words))
        if first_problem is None:
            shown = " ".join(words) or part.raw
            first_problem = problem or f"`{_short(shown)}` is not allowed by any rule"
    if unallowed:
        return LineVerdict(False, all_read_only, first_problem or "", None, tuple(unallowed))
    if used_rules:
        rules = ", ".join(f"Bash({s})" for s in dict.fromkeys(used_rules))
        return LineVerdict(True, all_read_only, f"allowed by {rules}", rules)
    return LineVerdict(True, True, "read-only command")


def _structural_problem(part: Part, workspace: Workspace) -> str | None:
    """What stops any prefix rule from vouching for this part, or None."""
    if part.substitution:
        return "it substitutes the output of other commands ($(...), backticks, <(...))"
    if part.unsafe:
        return "it uses shell syntax that cannot be checked safely"
    if part.words and _ASSIGNMENT.match(part.words[0]):
        return "it sets variables in front of the command"
    cwd = workspace.shell_cwd or workspace.root
    if not redirects_stay_inside(part, cwd, workspace.is_inside):
        return "it redirects to a file outside the project"
    return None


def part_is_read_only(part: Part, words: list[str], workspace: Workspace) -> bool:
    """A listed read-only command that writes nowhere and names only project paths."""
    if not words:
        return False
    for op, target in part.redirects:
        if not (is_fd_duplication(op, target) or target in _QUIET_TARGETS):
            return False
    if words[0] == "cd":
        return len(words) <= 2 and _paths_inside(words[1:] or ["."], workspace)
    if not is_read_only_command(shlex.join(words)):
        return False
    return _paths_inside([w for w in words[1:] if not w.startswith("-")], workspace)


def _paths_inside(args: list[str], workspace: Workspace) -> bool:
    """Every argument, taken as a path, stays inside the project and is not a secret."""
    cwd = workspace.shell_cwd or workspace.root
    for arg in args:
        if arg.startswith("~") or "$" in arg or "`" in arg:
            return False  # the shell expands these to places we cannot see
        if "=" in arg and arg.startswith("-"):
            continue
        path = Path(arg)
        literal = path if path.is_absolute() else cwd / path
        real = real_path(literal)
        if not workspace.is_inside(literal) or not workspace.is_inside(real):
            return False
        if special_path_reason(real, workspace.root, writing=False):
            return False
    return True


def _short(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
