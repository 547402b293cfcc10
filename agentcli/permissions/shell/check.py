"""The decision material for one Bash line, as policy.py asks for it.

In the policy's order:
- `rule_match(specs)`: does a deny (or ask) rule match any command the line
  runs? "Cannot tell" (`certain=False`) means ask, in every mode
  (rulematch.py);
- `denied_read()`: does something read a file a Read deny rule covers?
  Then the line is refused (reading.py);
- `read_only`: does every command only read (plan mode);
- `verdict(allow_specs)`: is every command allowed, by a rule or as
  read-only, with every path it touches where it may land (judge.py)?
- `confined(allow_specs)`: may it run unasked in the sandbox, on the same
  analysis (confined.py)?
- `suggestions(allow_specs)`: the rules a "yes, for this session" answer adds.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from agentcli.permissions.shell.commands import walk_line
from agentcli.permissions.shell.confined import confined_problem
from agentcli.permissions.shell.context import ShellContext
from agentcli.permissions.shell.judge import Judge, only_reads
from agentcli.permissions.shell.model import Walk
from agentcli.permissions.shell.places import Places
from agentcli.permissions.shell.reading import denied_read
from agentcli.permissions.shell.rulematch import RuleMatch, match_rules
from agentcli.permissions.shell.words import Scope

__all__ = ["Analysis", "LineVerdict", "RuleMatch", "ShellContext", "analyse"]


@dataclass(frozen=True, slots=True)
class LineVerdict:
    allowed: bool
    read_only: bool  # every command only reads (paths may still need a question)
    reason: str
    rule: str | None = None


def analyse(command: str, ctx: ShellContext) -> Analysis:
    scope = Scope(
        env=ctx.env,
        cwds=(Path(os.path.realpath(ctx.cwd)),),
        env_complete=not ctx.env.get("BASH_ENV"),
    )
    return Analysis(command, ctx, walk_line(command, scope), Places(ctx))


@dataclass
class Analysis:
    command: str
    ctx: ShellContext
    walk: Walk
    places: Places

    @property
    def understood(self) -> bool:
        return not self.walk.problems and not self.walk.dynamic

    @property
    def not_understood(self) -> str:
        return next(iter(self.walk.problems + self.walk.dynamic), "")

    def rule_match(self, specs: Sequence[str]) -> RuleMatch | None:
        return match_rules(self.walk, self.command, specs)

    def denied_read(self) -> str | None:
        if self.ctx.read_denied is None:
            return None
        return denied_read(self.walk, self.places)

    @cached_property
    def read_only(self) -> bool:
        """Every command only reads and writes no file (where it reads is judged apart)."""
        commands = self.walk.commands
        return self.understood and bool(commands) and all(only_reads(c) for c in commands)

    def _unjudgeable(self) -> LineVerdict | None:
        """The line is not understood, or runs nothing: nothing can allow it."""
        if not self.understood:
            why = f"agentcli cannot check this command: {self.not_understood}"
            return LineVerdict(False, False, why)
        if not self.walk.commands:
            return LineVerdict(False, False, "the command is empty")
        return None

    def verdict(self, allow_specs: Sequence[str]) -> LineVerdict:
        unjudgeable = self._unjudgeable()
        if unjudgeable is not None:
            return unjudgeable
        judge = Judge(self.places, self.ctx.env, allow_specs)
        judgements = [judge.judge(c) for c in self.walk.commands]
        failed = next((j for j in judgements if not j.ok), None)
        if failed is not None:
            return LineVerdict(False, self.read_only, failed.reason)
        rules = list(dict.fromkeys(r for j in judgements for r in j.rules))
        if rules:
            shown = ", ".join(f"Bash({r})" for r in rules)
            return LineVerdict(True, self.read_only, f"allowed by {shown}", shown)
        return LineVerdict(True, True, "read-only command")

    def confined(self, allow_specs: Sequence[str]) -> LineVerdict:
        """May the line run unasked in the sandbox (autoAllowBashIfSandboxed)?

        On the same analysis as `verdict`: every command is allowed (by a rule or as
        read-only), or, where no rule allows it, passes what the sandbox does not
        replace (confined.py). Not understood, or not known before it runs: ask.
        """
        unjudgeable = self._unjudgeable()
        if unjudgeable is not None:
            return unjudgeable
        judge = Judge(self.places, self.ctx.env, allow_specs)
        for command in self.walk.all_commands():
            if judge.judge(command).ok:
                continue
            problem = confined_problem(
                self.places, self.ctx.env, command, read_only=only_reads(command)
            )
            if problem:
                return LineVerdict(False, self.read_only, problem)
        return LineVerdict(True, self.read_only, "it runs in the sandbox")

    def suggestions(self, allow_specs: Sequence[str] = ()) -> list[str]:
        """Prefix rules for the commands not yet allowed; none when the line is not understood."""
        if not self.understood:
            return []
        judge = Judge(self.places, self.ctx.env, allow_specs)
        out = [spec for c in self.walk.commands for spec in judge.judge(c).suggest]
        return list(dict.fromkeys(out))


def line_is_read_only(command: str) -> bool:
    """The whole line only reads: every command on the read-only list
    (readonly_commands.py), no file written, nothing hidden, all of it understood.
    Paths are not judged here (that needs the project: see `Analysis`). The Bash
    tool's `is_read_only` asks this (permissions/policy.py `only_reads`)."""
    cwd = Path.cwd()
    ctx = ShellContext(cwd=cwd, roots=(Path("/"),), env=dict(os.environ), project=cwd)
    return analyse(command, ctx).read_only
