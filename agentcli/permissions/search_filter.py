"""What Grep and Glob may show: only what Read could read without asking.

A search reads every file it reaches. Without this filter, `Read(./private/**)`
denied would still let Grep over the project print private/key.txt, and a
`.env` (which Read asks about) would come out of any search. So for each
call the engine builds a `RuleSearchFilter` from the live policy (an "allow
for this session" answer counts from the next call on) and hands it to the
tool (`ToolContext.search_filter`). Three layers, cheapest first:

- `rg_excludes`: rules that translate exactly into ripgrep globs keep rg from
  opening those files at all;
- `hider`: every path rg reports is judged, as reached, with symlinks
  resolved and under the other names of a hard-linked file, against the deny rules (and, for tools that show contents, the
  ask rules and the always-ask secrets: .env* files and ~/.ssh, unless an
  allow rule names the file, as for Read). This is the final word: a glob
  translation that falls short leaks nothing;
- `note`: the result names the rules that keep paths out of the search. It
  depends on the rules and the place searched only, never on whether a
  hidden file matched: a count of hidden matches would let a model read a
  denied file one regular expression at a time.

Glob shows names only, so only deny rules hide its results: a `.env` or a
folder behind an ask rule is listed, never read.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from agentcli.config.path_rules import PathPattern, compile_path_pattern
from agentcli.config.rules import Rule
from agentcli.config.special_paths import secret_name, ssh_folder
from agentcli.permissions.hardlinks import LinkScanner
from agentcli.permissions.session_rules import SessionRules
from agentcli.permissions.types import PermissionMode

NAMES_ONLY_TOOLS = frozenset({"Glob"})

# Rule text that means the same as an rg glob: no classes, braces or escapes.
_PLAIN = re.compile(r"[\w.\-/*? @%+=~,:]*")
_GLOB_CHARS = re.compile(r"[*?\[]")


@dataclass(frozen=True, slots=True)
class _Hiding:
    """One rule that hides files, ready to test path strings quickly."""

    rule: Rule
    pattern: PathPattern
    anchor: str
    prefix: str  # anchor + "/"
    asks: bool  # an ask rule (a deny rule otherwise)

    @classmethod
    def of(cls, rule: Rule, root: Path, *, asks: bool) -> _Hiding:
        assert rule.specifier is not None
        pattern = compile_path_pattern(rule.specifier, rule.base or root)
        anchor = str(pattern.anchor)
        return cls(rule, pattern, anchor, anchor.rstrip("/") + "/", asks)

    def matches(self, path: str) -> bool:
        if path == self.anchor:
            rel = ""
        elif path.startswith(self.prefix):
            rel = path[len(self.prefix) :]
        else:
            return False
        return self.pattern.regex.fullmatch(rel) is not None

    def head(self) -> str:
        """The folder everything the rule covers lies in (its literal leading part)."""
        if not self.pattern.anchored:
            return self.anchor
        literal: list[str] = []
        for segment in self.pattern.text.split("/")[:-1]:
            if _GLOB_CHARS.search(segment):
                break
            literal.append(segment)
        return "/".join([self.anchor.rstrip("/"), *literal]) if literal else self.anchor


class RuleSearchFilter:
    """The `SearchFilter` (tools/base.py) of one Grep or Glob call.

    What hides something in a search of a target: the deny rules (and, for
    contents, the ask rules and the secrets) that reach it, except what the
    person was asked about for this very call: an ask rule, or a secret, that
    covers the target itself (`Grep` over `docs/` under `Read(./docs/**)` asks,
    and once allowed shows docs/; a search of the project still hides it).
    """

    def __init__(self, policy: SessionRules, tool_name: str) -> None:
        self._policy = policy
        self._tool = tool_name
        self._contents = tool_name not in NAMES_ONLY_TOOLS

    @cached_property
    def _all(self) -> list[_Hiding]:
        policy = self._policy
        chosen = [(rule, False) for rule in policy.deny]
        if self._contents and policy.mode is not PermissionMode.BYPASS:
            chosen += [(rule, True) for rule in policy.ask]
        return [
            _Hiding.of(rule, policy.workspace.root, asks=asks)
            for rule, asks in chosen
            if rule.specifier is not None and rule.applies_to(self._tool)
        ]

    @cached_property
    def _links(self) -> LinkScanner:
        return self._policy.link_scanner()

    @cached_property
    def _secrets_hidden(self) -> bool:
        return self._contents and self._policy.mode is not PermissionMode.BYPASS

    @cached_property
    def _ssh(self) -> tuple[str, str]:
        folder = str(ssh_folder())
        return folder, folder.rstrip("/") + "/"

    @cached_property
    def _exact_allows(self) -> list[PathPattern]:
        policy = self._policy
        return [
            compile_path_pattern(rule.specifier, rule.base or policy.workspace.root)
            for rule in policy.allow
            if rule.specifier is not None and rule.applies_to(self._tool)
        ]

    def _secret(self, path: str) -> bool:
        folder, prefix = self._ssh
        name = path[path.rfind("/") + 1 :]
        return secret_name(name) or path == folder or path.startswith(prefix)

    def _rules_for(self, target: str, real_target: str) -> list[_Hiding]:
        """The rules that reach a search of `target`, less the ask rules covering it."""
        return [
            h
            for h in self._all
            if (_related(h.anchor, target) or _related(h.anchor, real_target))
            and not (h.asks and (h.matches(target) or h.matches(real_target)))
        ]

    def hides(self, written: str, real: str) -> bool:
        """The judgement of one path, in a search of the whole file system."""
        hider = self.hider("/", "/")
        return hider is not None and hider(written, real)

    def hider(self, target: str, real_target: str) -> Callable[[str, str], bool] | None:
        """The judgement of paths found at or below `target`; None if none can be hidden.

        Only the rules and secret folders that reach the target are tried: a
        search pays per file for what can hide something there, no more.
        """
        hiding = self._rules_for(target, real_target)
        secrets = self._secrets_hidden and not (self._secret(target) or self._secret(real_target))
        if not hiding and not secrets:
            return None
        folder, prefix = self._ssh
        ssh = _related(folder, target) or _related(folder, real_target)
        exact = self._exact_allows

        def secret(path: str) -> bool:
            return secret_name(path[path.rfind("/") + 1 :]) or (
                ssh and (path == folder or path.startswith(prefix))
            )

        def judged(written: str, real: str) -> bool:
            moved = written is not real and written != real
            for rule in hiding:
                if rule.matches(real) or (moved and rule.matches(written)):
                    return True
            if secrets and (secret(real) or (moved and secret(written))):
                return not any(pattern.names_exactly(Path(real)) for pattern in exact)
            return False

        def hides(written: str, real: str) -> bool:
            if judged(written, real):
                return True
            # A hard link to a hidden file is that file (hardlinks.py).
            others = self._links.other_names(real)
            if others is None:
                return False
            if others.unknown_reason(real, writing=False):
                return True
            return any(judged(name, name) for name in others.names)

        return hides

    def rg_excludes(self, cwd: str, target: str, real_target: str) -> list[str]:
        globs = (_rg_glob(h, cwd) for h in self._rules_for(target, real_target))
        return [f"!{glob}" for glob in globs if glob is not None]

    def note(self, target: str, real_target: str) -> str | None:
        names = [
            str(h.rule)
            for h in self._rules_for(target, real_target)
            if _related(h.head(), target) or _related(h.head(), real_target)
        ]
        if not names:
            return None
        return f"(Permission rules keep some paths out of this search: {', '.join(names)}.)"


def _related(a: str, b: str) -> bool:
    """One path is the other or lies inside it."""
    return a == b or a.startswith(b.rstrip("/") + "/") or b.startswith(a.rstrip("/") + "/")


def _rg_glob(hiding: _Hiding, cwd: str) -> str | None:
    """The rule as a gitignore-style glob for rg running in `cwd`, or None if not exact.

    rg matches its globs against paths relative to the folder it runs in,
    gitignore style, as path rules are matched against their anchor; both
    cover everything below a folder they name.
    """
    text = hiding.pattern.text
    if not text or not _PLAIN.fullmatch(text) or _odd_stars(text):
        return None
    anchor = hiding.anchor
    inside = cwd == anchor or cwd.startswith(hiding.prefix)
    if not hiding.pattern.anchored:
        if inside:
            return text  # no slash: any depth, in rg as in the rule
        below = _below(anchor, cwd)
        return None if below is None else f"/{below}/**/{text}"
    if cwd == anchor:
        return f"/{text}"
    below = _below(anchor, cwd)
    if below is not None:
        return f"/{below}/{text}"
    if not inside:
        return None
    # rg runs in a folder below the anchor: the rule's leading folders must lead there.
    lead = cwd[len(hiding.prefix) :].split("/")
    segments = text.split("/")
    if len(segments) <= len(lead) or segments[: len(lead)] != lead:
        return None
    if any(_GLOB_CHARS.search(segment) for segment in lead):
        return None
    return "/" + "/".join(segments[len(lead) :])


def _below(anchor: str, cwd: str) -> str | None:
    """`anchor` relative to `cwd` when it lies inside it, in plain characters."""
    prefix = cwd.rstrip("/") + "/"
    if not anchor.startswith(prefix):
        return None
    rel = anchor[len(prefix) :]
    return rel if _PLAIN.fullmatch(rel) and not _GLOB_CHARS.search(rel) else None


def _odd_stars(text: str) -> bool:
    """`**` anywhere but as a whole segment: the two glob dialects may differ there."""
    return any("**" in segment and segment != "**" for segment in text.split("/"))
