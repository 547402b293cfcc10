"""Where a path a command names really lands, and what that means.

A path is joined to every folder the command may run in, normalised as
written and resolved with every link followed; then: is it outside the
project (and added folders), one of the always-asked places (config/special_paths.py),
covered by a Read deny rule? A folder read recursively is walked (bounded)
for covered files, `.env*` files and links out of the project.

Paths are plain text here (absolute, normalised): a decision checks many of
them and must stay well under a millisecond.
"""

from __future__ import annotations

import os
from pathlib import Path

from agentcli.config.special_paths import SpecialPlaces
from agentcli.permissions.hardlinks import link_scanner
from agentcli.permissions.shell.context import ShellContext

MAX_TREE_ENTRIES = 20_000
QUIET = frozenset(
    {"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/stdin", "/dev/zero", "/dev/fd/1", "/dev/fd/2"}
)


class Places:
    """The path checks of one analysis (resolved paths and walks are remembered)."""

    def __init__(self, ctx: ShellContext) -> None:
        self.ctx = ctx
        self.roots = tuple(os.path.realpath(r) for r in ctx.roots)
        self.scratch = os.path.realpath(ctx.scratch) if ctx.scratch else None
        self.special = SpecialPlaces(ctx.project)
        self.links = link_scanner(ctx.roots, ctx.read_denied_roots)
        self._trees: dict[tuple[str, bool], str | None] = {}
        self._resolved: dict[tuple[str, tuple[Path, ...] | None], list[tuple[str, str]]] = {}

    def is_denied(self, path: str) -> bool:
        return self.ctx.read_denied is not None and self.ctx.read_denied(Path(path))

    def overlaps_denied(self, folder: str) -> bool:
        """Could files under `folder` (resolved) be covered by a Read deny rule?"""
        roots = (os.path.realpath(r) for r in self.ctx.read_denied_roots)
        return any(_under(folder, root) or _under(root, folder) for root in roots)

    def inside(self, real: str) -> bool:
        return any(_under(real, root) for root in self.roots)

    def _places(self, value: str, cwds: tuple[Path, ...] | None) -> list[tuple[str, str]] | None:
        """(as written, with every link followed) for each folder it may be relative to."""
        if value.startswith("/"):
            cwds = (Path("/"),)
        elif cwds is None:
            return None
        key = (value, cwds)
        if key not in self._resolved:
            joined = [os.path.join(base, value) for base in cwds]
            self._resolved[key] = [(os.path.normpath(j), os.path.realpath(j)) for j in joined]
        return self._resolved[key]

    def looks_like_path(self, value: str, cwds: tuple[Path, ...] | None) -> bool:
        if "/" in value or value.startswith("~") or value in (".", ".."):
            return True
        if cwds is None:
            return True
        return bool(value) and any(os.path.lexists(os.path.join(c, value)) for c in cwds)

    def denied(self, value: str, cwds: tuple[Path, ...] | None) -> bool:
        places = self._places(value, cwds) or []
        return any(
            self.is_denied(lit) or self.is_denied(real) or self._linked_to_denied(real)
            for lit, real in places
        )

    def _linked_to_denied(self, real: str) -> bool:
        """Is `real` a hard link to a file a Read deny rule covers (hardlinks.py)?"""
        if self.ctx.read_denied is None:
            return False
        others = self.links.other_names(real)
        return others is not None and any(map(self.is_denied, others.names))

    def _link_problem(self, real: str, *, writing: bool) -> tuple[str, str] | None:
        """(kind, reason) when a hard link makes `real` a protected file, or unknowable."""
        others = self.links.other_names(real)
        if others is None:
            return None
        for name in others.names:
            if not writing and self.is_denied(name):
                return ("deny", f"{real} is a hard link to {name}, which a Read deny rule covers")
            reason = self.special.reason(name, writing=writing)
            if reason:
                return ("special", f"{real} is a hard link to {name}: {reason}")
        unknown = others.unknown_reason(real, writing=writing)
        return ("special", unknown) if unknown else None

    def read(
        self, value: str, cwds: tuple[Path, ...] | None, *, tree: bool, hidden: bool
    ) -> tuple[str, str] | None:
        """(kind, reason) when reading `value` is a problem: deny, special, outside, tree."""
        if value.startswith("/dev/fd/") or value in QUIET:
            return None
        places = self._places(value, cwds)
        if places is None:
            return ("unknown", f"{value} is relative to a folder that is not known before it runs")
        for literal, real in places:
            if self.is_denied(literal) or self.is_denied(real):
                return ("deny", f"{value} is covered by a Read deny rule")
            special = self.special.reason(literal, writing=False) or self.special.reason(
                real, writing=False
            )
            if special:
                return ("special", special)
            linked = self._link_problem(real, writing=False)
            if linked:
                return linked
            if not self.inside(real) and not (self.scratch and _under(real, self.scratch)):
                return ("outside", f"it reads {real}, outside the project")
            if tree and os.path.isdir(real):
                problem = self._tree(real, hidden)
                if problem:
                    return ("tree", problem)
        return None

    def write(
        self, value: str, cwds: tuple[Path, ...] | None, *, special_only: bool = False
    ) -> str | None:
        places = self._places(value, cwds)
        if places is None:
            return "the folder it is relative to is not known before it runs"
        for literal, real in places:
            special = self.special.reason(literal, writing=True) or self.special.reason(
                real, writing=True
            )
            if special:
                return special
            linked = self._link_problem(real, writing=True)
            if linked:
                return linked[1]
            if not special_only and not self.inside(real):
                return "outside the project"
        return None

    def _tree(self, folder: str, hidden: bool) -> str | None:
        if not hidden and self.ctx.read_denied is None:
            return None  # nothing to look for
        key = (folder, hidden)
        if key not in self._trees:
            self._trees[key] = self._walk(folder, hidden)
        return self._trees[key]

    def _walk(self, folder: str, hidden: bool) -> str | None:
        """A recursive read over `folder`: does it reach a denied or secret file?"""
        seen = 0
        everything = f"it reads everything under {folder}"
        for top, dirs, files in os.walk(folder):
            dirs[:] = [d for d in dirs if d != ".git"]
            for name in dirs + files:
                seen += 1
                if seen > MAX_TREE_ENTRIES:
                    return f"{everything}, too many files to check"
                path = os.path.join(top, name)
                if self.is_denied(path):
                    return f"{everything}, which holds {path} (a Read deny rule covers it)"
                if not hidden:
                    continue
                if name.startswith(".env"):
                    return f"{everything}, which holds {path} (may hold secrets)"
                if os.path.islink(path) and not self.inside(os.path.realpath(path)):
                    return f"{everything}, where {path} links outside the project"
        return None


def _under(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")
