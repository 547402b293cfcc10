"""Grep: search file contents with ripgrep.

The tool is a thin translation layer: fields become rg flags, rg's output
becomes text for the model. Everything that makes search correct and fast
(regex engine, .gitignore, binary detection, parallel walk) is ripgrep's.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

from pydantic import Field

from agentcli.tools.base import SearchFilter, Tool, ToolContext, ToolError, ToolResult, Workspace
from agentcli.tools.display import SearchDisplay
from agentcli.tools.inputs import ArgText, PathText, ToolInput
from agentcli.tools.ripgrep import ALWAYS_EXCLUDED, RgOutput, run_rg, split_globs
from agentcli.tools.search_scope import SearchScope, rg_error_note, visible_errors

# Longer lines are shown as a preview: one minified file must not fill the context.
MAX_COLUMNS = 500
# Content mode stops here even with head_limit=0, for the same reason.
MAX_CHARS = 30_000

# The path in a content line ends in a NUL, which no path holds (see _content_lines).
FIELD_SEPARATORS = ("--field-match-separator=\\x00:", "--field-context-separator=\\x00-")

OutputMode = Literal["files_with_matches", "content", "count"]


class GrepInput(ToolInput):
    pattern: ArgText = Field(
        min_length=1,
        description="Regular expression to search for (ripgrep / Rust regex syntax).",
    )
    path: PathText | None = Field(
        None,
        description="File or folder to search in. Defaults to the project root.",
    )
    glob: ArgText | None = Field(
        None,
        description='Only search files matching this glob, e.g. "*.py" or "*.{ts,tsx}" (rg --glob).',
    )
    type: ArgText | None = Field(
        None,
        description='Only search files of this type, e.g. "py", "js", "rust" (rg --type).',
    )
    output_mode: OutputMode = Field(
        "files_with_matches",
        description=(
            '"files_with_matches" lists matching files (default), "content" shows matching '
            'lines, "count" shows the number of matching lines per file.'
        ),
    )
    case_insensitive: bool = Field(False, alias="-i", description="Ignore case (rg -i).")
    line_numbers: bool = Field(
        True,
        alias="-n",
        description="Show line numbers in content mode (default true). Ignored in other modes.",
    )
    after_context: int | None = Field(
        None, alias="-A", ge=0, description="Lines to show after each match (content mode)."
    )
    before_context: int | None = Field(
        None, alias="-B", ge=0, description="Lines to show before each match (content mode)."
    )
    context: int | None = Field(
        None,
        alias="-C",
        ge=0,
        description="Lines to show before and after each match (content mode).",
    )
    multiline: bool = Field(
        False,
        description="Let patterns span lines and `.` match newlines (rg -U --multiline-dotall).",
    )
    head_limit: int = Field(
        250,
        ge=0,
        description=(
            "Return at most this many results: files, count lines, or content lines "
            "(default 250; 0 means no limit)."
        ),
    )
    offset: int = Field(
        0, ge=0, description="Skip this many results first, to page through a long result."
    )


class GrepTool(Tool):
    name = "Grep"
    input_model = GrepInput
    read_only = True
    concurrency_safe = True

    def summary(self, inp: GrepInput, workspace: Workspace) -> str:
        text = inp.pattern if not inp.path else f"{inp.pattern} in {inp.path}"
        return _shorten(text, 80)

    def target_path(self, inp: GrepInput, workspace: Workspace) -> Path | None:
        return workspace.resolve(inp.path) if inp.path else workspace.root

    async def run(self, inp: GrepInput, ctx: ToolContext) -> ToolResult:
        scope, path_arg = search_location(ctx.workspace, inp.path, ctx.search_filter)
        limit = inp.head_limit or None
        strip_dot = path_arg == "."
        args = build_rg_args(inp, path_arg, scope.rg_excludes())
        listing = _Listing(inp.output_mode == "count", scope, strip_dot)
        if inp.output_mode == "content":
            # Content lines come out in their final order: rg stops once the page is full.
            max_lines = inp.offset + limit if limit else None
            out = await run_rg(args, scope.cwd, max_lines=max_lines)
            lines, withheld = _content_lines(out.stdout, scope, inp.line_numbers)
            if withheld and out.stopped_early:  # withheld lines took places on the page
                out = await run_rg(args, scope.cwd)
                lines, withheld = _content_lines(out.stdout, scope, inp.line_numbers)
            lines = [_clean(line, strip_dot) for line in lines]
        elif inp.output_mode == "count":
            out = await run_rg(args, scope.cwd)
            for line in _split_lines(out.stdout):
                listing.add(line)
            lines = listing.lines
        else:  # ranked by mtime: each file is judged and stat-ed while rg still searches
            out = await run_rg(args, scope.cwd, on_line=listing.add)
            lines = listing.lines

        notes = ""
        if out.returncode == 2 and not out.stopped_early:
            errors = visible_errors(out.stderr, scope.shows)
            if errors and not out.stdout:
                raise ToolError("\n".join(errors))
            notes += rg_error_note(errors)
        rules_note = scope.note()
        notes += f"\n\n{rules_note}" if rules_note else ""
        if not lines:
            return ToolResult("No matches found" + notes, display=_display(0))

        if inp.output_mode == "files_with_matches":
            text, shown = _files_result(lines, listing.mtimes, inp.offset, limit)
        elif inp.output_mode == "count":
            text, shown = _count_result(lines, inp.offset, limit)
        else:
            text, shown = _content_result(lines, out, inp.offset, limit)
        return ToolResult(text + notes, display=_display(shown))


class _Listing:
    """Files (or "path:count" lines) that may be shown, as rg reports them.

    For files, `add` runs in run_rg's reader thread, line by line while rg
    still searches, so the work per file (the permission filter, a stat for
    the mtime ranking) overlaps rg's own.
    """

    def __init__(self, counts: bool, scope: SearchScope, strip_dot: bool) -> None:
        self.lines: list[bytes] = []
        self.mtimes: dict[bytes, int] = {}
        self._counts = counts
        self._scope = scope
        self._strip_dot = strip_dot
        self._base = os.fsencode(scope.cwd)

    def add(self, raw: bytes) -> None:
        line = raw.removesuffix(b"\r")
        if not self._scope.shows(line.rpartition(b":")[0] if self._counts else line):
            return
        line = _clean(line, self._strip_dot)
        self.lines.append(line)
        if not self._counts:
            self.mtimes[line] = _mtime(os.path.join(self._base, line))


def search_location(
    ws: Workspace, path: str | None, search_filter: SearchFilter | None = None
) -> tuple[SearchScope, str]:
    """Where to run rg and which path to give it, so results come out root-relative.

    Inside the project rg runs from the root with a relative path; outside it, the
    path is absolute and so are the results.
    """
    target = ws.resolve(path) if path else ws.root
    if not os.path.exists(target):
        raise ToolError(f"Path does not exist: {path}")
    if target == ws.root:
        return SearchScope(ws.root, target, search_filter), "."
    if target.is_relative_to(ws.root):
        return SearchScope(ws.root, target, search_filter), str(target.relative_to(ws.root))
    cwd = target if target.is_dir() else target.parent
    return SearchScope(cwd, target, search_filter), str(target)


def _content_lines(
    stdout: bytes, scope: SearchScope, line_numbers: bool
) -> tuple[list[bytes], bool]:
    """Content lines of shown files, their NUL field separators taken out again;
    and whether any line was withheld.

    rg is asked to end the path with a NUL (`FIELD_SEPARATORS`), so a path with
    a ":" or "-" in it is still told apart from the line number and the text.
    """
    kept: list[bytes] = []
    withheld = False
    for line in _split_lines(stdout):
        line = line.removesuffix(b"\r")
        path, nul, rest = line.partition(b"\0")
        if not nul:  # "--" between context groups, or rg's note on a file it was given
            if line == b"--" or scope.shows_file_target():
                kept.append(line)
            continue
        if not scope.shows_again(path):
            withheld = True
            continue
        if line_numbers:
            number, _, text = rest.partition(b"\0")
            kept.append(path + number + text)
        else:
            kept.append(path + rest)
    return _tidy_separators(kept), withheld


def _split_lines(stdout: bytes) -> list[bytes]:
    """rg's output lines. Split on "\n" only: a stray "\r" inside a line is content."""
    lines = stdout.split(b"\n")
    if lines[-1] == b"":
        lines.pop()
    return lines


def _tidy_separators(lines: list[bytes]) -> list[bytes]:
    """No "--" at either end or twice in a row (what withheld groups leave behind)."""
    tidy: list[bytes] = []
    for line in lines:
        if line == b"--" and (not tidy or tidy[-1] == b"--"):
            continue
        tidy.append(line)
    if tidy and tidy[-1] == b"--":
        tidy.pop()
    return tidy


def build_rg_args(inp: GrepInput, path_arg: str, excludes: Sequence[str] = ()) -> list[str]:
    """The rg command line for a Grep call (public so the benchmark runs the same).

    `excludes`: `--glob` exclusions from the permission rules.
    """
    # --no-config: a user's RIPGREP_CONFIG_PATH must not change the output format.
    # --block-buffered: rg otherwise flushes per file, waking the event loop hundreds of times.
    args = ["--no-config", "--color=never", "--hidden", "--block-buffered"]
    if inp.case_insensitive:
        args.append("--ignore-case")
    if inp.multiline:
        args += ["--multiline", "--multiline-dotall"]
    if inp.type:
        args += ["--type", inp.type]
    for glob in split_globs(inp.glob or ""):
        args += ["--glob", glob]
    for glob in (*ALWAYS_EXCLUDED, *excludes):  # last, so a user glob cannot re-include them
        args += ["--glob", glob]
    if inp.output_mode == "files_with_matches":
        args.append("--files-with-matches")
    elif inp.output_mode == "count":
        args += ["--count", "--with-filename"]
    else:
        # Sorted by path: a search repeated with a larger offset continues where
        # the previous page ended, instead of showing lines in a new random order.
        args += ["--with-filename", "--no-heading", "--sort", "path", *FIELD_SEPARATORS]
        args += ["--max-columns", str(MAX_COLUMNS), "--max-columns-preview"]
        args.append("--line-number" if inp.line_numbers else "--no-line-number")
        if inp.context is not None:
            args += ["--context", str(inp.context)]
        if inp.before_context is not None:
            args += ["--before-context", str(inp.before_context)]
        if inp.after_context is not None:
            args += ["--after-context", str(inp.after_context)]
    # --regexp keeps a pattern starting with "-" a pattern; "--" does the same for the path.
    return [*args, "--regexp", inp.pattern, "--", path_arg]


def _clean(raw: bytes, strip_dot: bool) -> bytes:
    return raw[2:] if strip_dot and raw.startswith(b"./") else raw


def _text(raw: bytes) -> str:
    return raw.decode("utf-8", "replace")


def _mtime(path: bytes) -> int:
    try:
        return os.stat(path).st_mtime_ns
    except OSError:
        return 0


def _files_result(
    lines: list[bytes], mtimes: dict[bytes, int], offset: int, limit: int | None
) -> tuple[str, int]:
    ranked = sorted(lines, key=lambda rel: (-mtimes.get(rel, 0), rel))
    page = ranked[offset : offset + limit if limit else None]
    noun = "file" if len(ranked) == 1 else "files"
    text = "\n".join([f"Found {len(ranked)} {noun}", *map(_text, page)])
    text += _page_note(offset, len(page), len(ranked), "files")
    return text, len(page)


def _count_result(lines: list[bytes], offset: int, limit: int | None) -> tuple[str, int]:
    entries: list[tuple[bytes, int]] = []
    for line in lines:
        path, _, count = line.rpartition(b":")
        entries.append((path, int(count) if count.isdigit() else 0))
    entries.sort()
    total = sum(count for _, count in entries)
    page = entries[offset : offset + limit if limit else None]
    body = [f"{_text(path)}:{count}" for path, count in page]
    files = "file" if len(entries) == 1 else "files"
    lines_word = "line" if total == 1 else "lines"
    body.append(f"\nFound {total} matching {lines_word} in {len(entries)} {files}")
    text = "\n".join(body) + _page_note(offset, len(page), len(entries), "entries")
    return text, len(page)


def _content_result(
    lines: list[bytes], out: RgOutput, offset: int, limit: int | None
) -> tuple[str, int]:
    page = lines[offset : offset + limit if limit else None]
    more = out.stopped_early or (limit is not None and len(lines) > offset + limit)
    if not page:
        return f"No matches past offset {offset}", 0
    kept: list[str] = []
    size = 0
    for raw in page:
        line = _text(raw)
        if size + len(line) + 1 > MAX_CHARS:
            break
        kept.append(line)
        size += len(line) + 1
    text = "\n".join(kept)
    if len(kept) < len(page):
        text += (
            f"\n\n(Output cut at {MAX_CHARS} characters after {len(kept)} lines; "
            f"use offset={offset + len(kept)} to continue, or narrow the search.)"
        )
    elif more:
        text += (
            f"\n\n(Showing {len(kept)} lines from offset {offset}; more results exist. "
            f"Use offset={offset + len(kept)} to see more, or narrow the search.)"
        )
    return text, len(kept)


def _page_note(offset: int, shown: int, total: int, what: str) -> str:
    if offset + shown >= total:
        return ""
    return (
        f"\n\n(Showing {what} {offset + 1}-{offset + shown} of {total}. "
        f"Use offset={offset + shown} to see more, or narrow the search.)"
    )


def _display(shown: int) -> SearchDisplay:
    return SearchDisplay(found=shown, shown=shown, unit="results")


def _shorten(text: str, width: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"
