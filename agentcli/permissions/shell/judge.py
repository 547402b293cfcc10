"""Is one command allowed: by an allow rule, through a wrapper, or as read-only?

Whatever allows it, a command is refused here when:
- its name is not known, it is a glob, or a wrapper's options are not modelled;
- it sets variables for itself (other than harmless ones);
- a redirect writes outside the project or into an always-asked place, or
  reads a file that is not free to read;
- it expands a variable that may hold a secret (secrets.py).
An allow rule vouches for the command's words, not for protected files: an
argument naming one, or an argument not known before the line runs, asks.
A read-only command must also read only what it may (reading.py).
"""

from __future__ import annotations

import shlex
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

from agentcli.permissions.shell.model import Command, Redirect
from agentcli.permissions.shell.paths import output_files
from agentcli.permissions.shell.places import QUIET, Places
from agentcli.permissions.shell.reading import (
    MOVES,
    history_problem,
    known_args,
    names_no_files,
    read_problem,
)
from agentcli.permissions.shell.readonly_commands import is_read_only_argv
from agentcli.permissions.shell.secrets import HARMLESS_PREFIX, secret_problem
from agentcli.permissions.shell.specifiers import matches
from agentcli.permissions.shell.suggest import suggest_rule
from agentcli.permissions.shell.text import short
from agentcli.permissions.shell.words import Word


@dataclass(frozen=True, slots=True)
class Judgement:
    ok: bool
    reason: str = ""
    suggest: tuple[str, ...] = ()  # rules that would allow it
    rules: tuple[str, ...] = ()  # the allow rules it relies on


@dataclass(frozen=True, slots=True)
class Judge:
    places: Places
    env: Mapping[str, str]
    specs: Sequence[str]  # the allow rules' specifiers

    def judge(self, command: Command) -> Judgement:
        problem = _structure(command) or self._redirect_problem(command)
        if problem:
            return Judgement(False, problem)
        if not command.argv:
            return Judgement(True)
        rule = next((s for s in self.specs if matches(s, command.argv) is True), None)
        if rule is not None:
            return self._by_rule(command, rule)
        wrapped = self._through_wrapper(command)
        if wrapped is not None:
            return wrapped
        if only_reads(command):
            return self._read_only(command)
        shown = short(" ".join(a if a is not None else "…" for a in command.argv))
        return Judgement(False, f"`{shown}` is not allowed by any rule", _suggest(command))

    def _read_only(self, command: Command) -> Judgement:
        secret = secret_problem(_words(command), self.env, rule_allowed=False)
        if secret:
            return Judgement(False, secret)
        trouble = read_problem(self.places, command, rule_allowed=False)
        if trouble is None:
            return Judgement(True)
        # What a "yes, for this session" answer adds: a prefix rule when that would
        # do (reading outside the project), else this exact command (a protected file).
        if read_problem(self.places, command, rule_allowed=True) is None:
            return Judgement(False, trouble, _suggest(command))
        if None in command.argv:
            return Judgement(False, trouble)
        return Judgement(False, trouble, (shlex.join(known_args(command)),))

    def _by_rule(self, command: Command, rule: str) -> Judgement:
        """A prefix rule vouches for a command, not for the protected files it names;
        a rule naming the exact command (no `*`) vouches for those too."""
        trouble = secret_problem(_words(command), self.env, rule_allowed=True)
        if trouble is None and "*" not in rule:
            return Judgement(True, rules=(rule,))
        trouble = trouble or self._argument_problem(command)
        if trouble is None and only_reads(command):
            trouble = read_problem(self.places, command, rule_allowed=True)
        trouble = trouble or history_problem(self.places, command)
        return Judgement(False, trouble) if trouble else Judgement(True, rules=(rule,))

    def _argument_problem(self, command: Command) -> str | None:
        """An argument naming a protected place (`--output=.git/config`), one not known,
        or a file a known output option writes outside the project (`git diff --output=/x`)."""
        if any(a is None for a in command.argv):
            return f"`{short(command.text)}` has arguments that are not known before it runs"
        for value in output_files(known_args(command)):
            problem = self.places.write(value, command.cwds)
            if problem:
                return f"`{short(command.text)}` writes {value}: {problem}"
        for arg in command.argv[1:]:
            if arg is None or (arg.startswith("-") and "=" not in arg):
                continue
            value = arg.split("=", 1)[1] if arg.startswith("-") else arg
            if value and self.places.looks_like_path(value, command.cwds):
                problem = self.places.write(value, command.cwds, special_only=True)
                if problem:
                    return f"`{short(command.text)}` names {value}: {problem}"
        return None

    def _through_wrapper(self, command: Command) -> Judgement | None:
        """A wrapper that adds nothing is allowed when everything it runs is."""
        unwrapped = command.unwrapped
        if unwrapped is None or not (unwrapped.inners or unwrapped.script is not None):
            return None
        blurred = unwrapped.candidates or unwrapped.dynamic or unwrapped.opaque
        if unwrapped.needs_own_rule or blurred:
            why = (
                unwrapped.needs_own_rule
                or f"`{command.name}` runs a command agentcli cannot pin down"
            )
            return Judgement(False, why, _suggest(command))
        # The commands inside were rebuilt from expanded words (or from a script the
        # outer words expanded into): what those words expanded is judged here.
        secret = secret_problem(_words(command), self.env, rule_allowed=False)
        if secret:
            return Judgement(False, secret)
        if command.name == "find":
            if not is_read_only_argv(known_args(command)):
                return None
            own = read_problem(self.places, command, rule_allowed=False, content=True)
            if own:
                return Judgement(False, own)
        inner = [self.judge(c) for c in command.inner]
        failed = next((j for j in inner if not j.ok), None)
        if failed is not None:
            return Judgement(False, failed.reason, tuple(s for j in inner for s in j.suggest))
        return Judgement(True, rules=tuple(r for j in inner for r in j.rules))

    def _redirect_problem(self, command: Command) -> str | None:
        return next(filter(None, (self._redirect(r) for r in command.redirects)), None)

    def _redirect(self, redirect: Redirect) -> str | None:
        target = redirect.target
        if target is None:
            return None
        if target.values is None:
            return f"it redirects to `{short(target.text)}`, which is not known before it runs"
        if len(target.values) != 1:
            return f"the redirect target `{short(target.text)}` is ambiguous"
        value = target.values[0]
        if value in QUIET:
            return None
        if redirect.writes:
            finding = self.places.write(value, redirect.cwds)
            return f"it writes to {value}: {finding}" if finding else None
        if redirect.reads:
            read = self.places.read(value, redirect.cwds, tree=False, hidden=False)
            return f"it reads {value}: {read[1]}" if read else None
        return f"`{redirect.op}` redirects are not modelled"


def only_reads(command: Command) -> bool:
    """The command reads and writes no file (where it reads is judged apart)."""
    if command.dynamic_name or command.assignments or not command.exact:
        return False
    if any(r.writes and r.target is not None and not _quiet(r.target) for r in command.redirects):
        return False
    if not command.argv:
        return True
    unwrapped = command.unwrapped
    if unwrapped is not None and (unwrapped.inners or unwrapped.script is not None):
        clean = not (unwrapped.needs_own_rule or unwrapped.candidates or unwrapped.opaque)
        own = command.name != "find" or is_read_only_argv(known_args(command))
        return clean and own and all(only_reads(c) for c in command.inner)
    if command.name in MOVES:
        return not command.via
    if any(a is None for a in command.argv):
        if command.via.startswith("find"):
            return is_read_only_argv(known_args(command))
        return names_no_files(command) and is_read_only_argv(known_args(command))
    return is_read_only_argv(known_args(command))


def _quiet(target: Word) -> bool:
    return target.values is not None and len(target.values) == 1 and target.values[0] in QUIET


def _structure(command: Command) -> str | None:
    if command.dynamic_name:
        return "the command name is not known before the line runs"
    for name, _word in command.assignments:
        if name not in HARMLESS_PREFIX:
            return f"it sets {name} for the command, which can change what it runs"
    if not command.exact:
        return f"`{command.via}` has options agentcli does not model"
    if command.words and len(command.words[0].values or ()) != 1:
        return f"the command name `{short(command.words[0].text)}` is not one plain word"
    return None


def _words(command: Command) -> Iterator[Word]:
    yield from command.words
    for _name, word in command.assignments:
        yield word
    for redirect in command.redirects:
        yield from (w for w in (redirect.target, redirect.body) if w is not None)


def _suggest(command: Command) -> tuple[str, ...]:
    spec = suggest_rule(command.argv)
    return (spec,) if spec else ()
