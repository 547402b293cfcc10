"""Glob: find files by name pattern, newest first.

The walk is ripgrep's (`rg --files --glob`): parallel, skips what .gitignore
ignores (node_modules, build output, virtualenvs), which on a real project is
both what the model wants and what keeps the call fast. Only the ranking by
modification time happens here.
"""

from __future__ import annotations

import heapq
import os
from pathlib import Path

from pydantic import Field

from agentcli.tools.base import Tool, ToolContext, ToolError, ToolResult, Workspace
from agentcli.tools.display import SearchDisplay
from agentcli.tools.inputs import PathText, ToolInput
from agentcli.tools.ripgrep import ALWAYS_EXCLUDED, run_rg
from agentcli.tools.search_scope import SearchScope, visible_errors

MAX_RESULTS = 100
_GLOB_CHARS = frozenset("*?[{")


class GlobInput(ToolInput):
    pattern: PathText = Field(
        min_length=1,
        description='Glob pattern to match file paths against, e.g. "**/*.py" or "src/**/*.ts".',
    )
    path: PathText | None = Field(
        None,
        description="Folder to search in. Defaults to the project root.",
    )


class GlobTool(Tool):
    name = "Glob"
    input_model = GlobInput
    read_only = True
    concurrency_safe = True

    def summary(self, inp: GlobInput, workspace: Workspace) -> str:
        text = inp.pattern if not inp.path else f"{inp.pattern} in {inp.path}"
        return text if len(text) <= 80 else text[:79] + "…"

    def target_path(self, inp: GlobInput, workspace: Workspace) -> Path | None:
        """The folder really searched: the pattern's leading folders count (`../x/*`)."""
        start = workspace.resolve(inp.path) if inp.path else workspace.root
        return split_pattern(start, inp.pattern)[0]

    async def run(self, inp: GlobInput, ctx: ToolContext) -> ToolResult:
        ws = ctx.workspace
        start = ws.resolve(inp.path) if inp.path else ws.root
        if not os.path.exists(start):
            raise ToolError(f"Directory does not exist: {inp.path}")
        if not os.path.isdir(start):
            raise ToolError(f"Not a directory: {inp.path} (Glob searches folders; use Read)")
        base, pattern = split_pattern(start, inp.pattern)
        scope = SearchScope(base, base, ctx.search_filter)
        rules_note = scope.note()
        note = f"\n\n{rules_note}" if rules_note else ""
        if not os.path.isdir(base):
            return ToolResult("No files found" + note, display=_display(0, 0))

        args = ["--no-config", "--files", "--hidden", "--block-buffered", "--glob", pattern]
        for glob in (*ALWAYS_EXCLUDED, *scope.rg_excludes()):
            args += ["--glob", glob]
        out = await run_rg(args, base)
        errors = visible_errors(out.stderr, scope.shows)
        if out.returncode == 2 and not out.stdout and errors:
            raise ToolError("\n".join(errors))
        names = [name for name in out.stdout.split(b"\n") if name and scope.shows(name)]
        if not names:
            return ToolResult("No files found" + note, display=_display(0, 0))

        newest = _newest(base, names, MAX_RESULTS)
        prefix = _display_prefix(ws, base)
        lines = [prefix + name.decode("utf-8", "replace") for name in newest]
        if len(names) > len(newest):
            lines.append(
                f"\n(Showing the {len(newest)} most recently modified of {len(names)} files; "
                "results truncated, use a more specific pattern or path.)"
            )
        return ToolResult("\n".join(lines) + note, display=_display(len(newest), len(names)))


def split_pattern(start: Path, pattern: str) -> tuple[Path, str]:
    """Move a pattern's literal leading folders into the folder searched.

    rg matches globs like .gitignore lines, relative to the folder it runs in:
    `*.py` matches at any depth, `src/*.py` and `/*.py` are anchored. An absolute
    pattern (`/repo/src/**/*.py`), one going up (`../lib/*.py`, `src/../../x/*`)
    or one starting with `./` names a real folder instead; it becomes the folder
    searched and the rest stays anchored to it, as in a shell. (A `..` after a
    wildcard, `**/../x`, matches nothing: rg only walks down.)
    """
    if pattern.startswith("!"):
        pattern = "\\" + pattern  # a literal "!", not a negation that matches everything
    parts = pattern.split("/")
    static: list[str] = []
    for part in parts[:-1]:
        if _GLOB_CHARS & set(part):
            break
        static.append(part)
    absolute = pattern.startswith("/")
    if not absolute and ".." not in static:
        if pattern.startswith("./"):
            return start, "/" + pattern[2:].lstrip("/")
        return start, pattern
    rest = "/".join(parts[len(static) :])
    folder = "/".join(static)
    if absolute and not folder.strip("/"):
        return start, pattern  # "/*.py", "/**/x": anchored to the search folder
    base = Path(os.path.normpath(folder if absolute else start / folder))
    if absolute and not os.path.isdir(base):
        return start, pattern  # "/src/*.py" where /src is not a real folder: anchored
    return base, "/" + rest


def _newest(base: Path, names: list[bytes], count: int) -> list[bytes]:
    root = os.fsencode(base)

    def key(name: bytes) -> tuple[int, bytes]:
        try:
            return (-os.stat(os.path.join(root, name)).st_mtime_ns, name)
        except OSError:
            return (0, name)

    return heapq.nsmallest(count, names, key=key)


def _display_prefix(ws: Workspace, base: Path) -> str:
    """How rg's base-relative names become root-relative (or absolute outside the root)."""
    if base == ws.root:
        return ""
    if base.is_relative_to(ws.root):
        return f"{base.relative_to(ws.root)}/"
    return f"{base}/"


def _display(shown: int, total: int) -> SearchDisplay:
    return SearchDisplay(found=total, shown=shown, unit="files")
