"""Deny and ask rules against a whole line: any command, anywhere, however it is written.

A deny rule must hold against every way of reaching the command it names:
- every command the walker found (in substitutions, behind wrappers, in
  `bash -c` scripts) is tried;
- the program's folder is dropped, from the command and from the rule
  (`/bin/rm`, `rm` and `Bash(/bin/rm:*)` meet), a name that is a glob
  may be any of its matches (`/bin/r?`), and options before a subcommand are
  skipped, each either with or without a value (`git -C . push` is `git push`);
- when the line holds something agentcli does not understand, the rule's
  words found in its text (quotes and backslashes removed) count as a match
  (`eval "r""m" x`);
- otherwise, when a word the rule needs is not known, or the line is not
  understood, the answer is "cannot tell" (`certain=False`): the caller asks.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from agentcli.permissions.shell.model import Command, Walk
from agentcli.permissions.shell.specifiers import first_words, matches
from agentcli.permissions.shell.wrappers import Arg

MAX_NAME_MATCHES = 32
MAX_LEADING_OPTIONS = 4
_TOKEN = re.compile(r"[^\s;&|()<>`$={}\[\],!#]+")


@dataclass(frozen=True, slots=True)
class RuleMatch:
    spec: str
    certain: bool  # False: the rule may match, the line cannot tell
    reason: str = ""


def match_rules(walk: Walk, source: str, specs: Sequence[str]) -> RuleMatch | None:
    """The first rule that matches (or may match) a command of the line."""
    if not specs:
        return None
    forms = [(spec, form) for spec in specs for form in _forms(spec)]
    maybe: str | None = None
    for command in walk.all_commands():
        for view in _views(command):
            for spec, form in forms:
                hit = matches(form, view)
                if hit:
                    return RuleMatch(spec, True)
                if hit is None and maybe is None:
                    maybe = spec
    unclear = walk.problems + walk.dynamic + walk.opaque
    if not unclear and maybe is None:
        return None
    in_text = _in_text(source, specs)
    if in_text is not None:
        return RuleMatch(in_text, True, "its words appear in a line agentcli cannot fully read")
    if maybe is not None:
        return RuleMatch(maybe, False, "a word it needs is not known before the line runs")
    return RuleMatch(specs[0], False, unclear[0])


def _forms(spec: str) -> list[str]:
    """The rule as written, and with its program's folder dropped (`/bin/rm:*` is `rm:*`)."""
    head, space, rest = spec.strip().partition(" ")
    if "/" not in head:
        return [spec]
    return [spec, head.rsplit("/", 1)[-1] + space + rest]


def _views(command: Command) -> Iterator[tuple[Arg, ...]]:
    """Every way a rule could read this command."""
    argv = command.argv
    if not argv:
        return
    first = command.words[0].values if command.words and command.words[0].values else ()
    for name in dict.fromkeys([argv[0], *first[:MAX_NAME_MATCHES]]):
        base = name.rsplit("/", 1)[-1] if name else name
        for view in _skipping_options((base, *argv[1:])):
            yield view
            if name != base:
                yield (name, *view[1:])


def _skipping_options(argv: tuple[Arg, ...]) -> Iterator[tuple[Arg, ...]]:
    """The command, and the command without the options before its first other word."""
    yield argv
    options = 0
    while 1 + options < len(argv) and (argv[1 + options] or "").startswith("-"):
        options += 1
    if not options or options > MAX_LEADING_OPTIONS:
        return
    rest = argv[1:]
    for mask in range(2**options):  # which options take the next word as their value
        kept: list[Arg] = []
        i = skipped = 0
        while i < len(rest):
            word = rest[i]
            if skipped < options and word is not None and word.startswith("-"):
                takes_value = bool(mask >> skipped & 1) and "=" not in word
                skipped += 1
                i += 2 if takes_value else 1
                continue
            kept.extend(rest[i:])
            break
        yield (argv[0], *kept)


def _in_text(source: str, specs: Sequence[str]) -> str | None:
    """A rule whose words appear, in order, among the words of the raw text."""
    text = source.replace("\\\n", "")  # bash joins lines that end in `\`
    text = re.sub(r"\\(.)", r"\1", text, flags=re.DOTALL).replace("'", "").replace('"', "")
    tokens = [t.rsplit("/", 1)[-1] if "/" in t else t for t in _TOKEN.findall(text)]
    for spec in specs:
        words = first_words(spec)
        if words:
            words[0] = words[0].rsplit("/", 1)[-1]
        n = len(words)
        if n and any(tokens[i : i + n] == words for i in range(len(tokens) - n + 1)):
            return spec
    return None
