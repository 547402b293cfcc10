"""Edit: replace an exact string in a file the model has read, changing nothing else.

Matching is literal (no regex, no fuzzy fallback): a wrong guess must fail
loudly rather than change the wrong place. The model writes "\\n"; in a CRLF
file the match runs on a view of the text with CRLF folded to LF, positions
are mapped back to the real text, and only the matched span is rewritten
(with the file's own line ending), so every other byte, including stray
line endings of a mixed file, stays as it was. The file's encoding, BOM and
permission bits are kept, and the write is atomic.

An empty `old_string` creates a file that does not exist yet (or fills an
existing empty one), as Claude Code allows; on a non-empty file it is refused.
"""

from __future__ import annotations

import asyncio
import os
from bisect import bisect_left
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from pydantic import Field

from agentcli.tools.base import FileTool, ToolContext, ToolError, ToolResult, Workspace
from agentcli.tools.diff import build_diff
from agentcli.tools.display import CreatedDisplay, DiffDisplay
from agentcli.tools.fileio import (
    TextFormat,
    count_lines,
    create_file,
    decode_text,
    ensure_read_and_fresh,
    looks_binary,
    missing_file_message,
    number_lines,
    read_current,
    replace_checked,
    split_lines,
    stat_for_change,
    to_newline,
)
from agentcli.tools.inputs import PathText, ToolInput

# Lines of context shown around each change in the snippet returned to the model.
SNIPPET_CONTEXT = 4
# With replace_all, snippets are shown for this many replacements at most.
MAX_SNIPPETS = 5


class EditInput(ToolInput):
    file_path: PathText = Field(
        description="Absolute path of the file to change (a relative path is taken from the "
        "project folder)."
    )
    old_string: str = Field(
        description="The exact text to replace, character for character as in the file "
        "(indentation and line breaks included, without Read's line-number prefix). It "
        "must occur exactly once unless replace_all is true."
    )
    new_string: str = Field(
        description="The text to put in its place; must differ from old_string."
    )
    replace_all: bool = Field(
        default=False,
        description="Replace every occurrence of old_string instead of requiring exactly one "
        "(e.g. to rename a variable throughout the file).",
    )


class EditTool(FileTool):
    name = "Edit"
    input_model: ClassVar[type[ToolInput]] = EditInput
    read_only: ClassVar[bool] = False
    concurrency_safe: ClassVar[bool] = False
    permission_title: ClassVar[str] = "Edit file"

    async def permission_preview(self, inp: Any, workspace: Workspace) -> DiffDisplay:
        """The diff the edit will make, with the file's real line numbers; an edit that
        cannot apply (file not read, changed since, old_string not found) fails here,
        before the person is asked."""
        _check_change(inp)
        plan = await asyncio.to_thread(plan_edit, inp, workspace)
        return plan.diff()

    def files_written(self, inp: Any, workspace: Workspace) -> list[Path]:
        return [workspace.resolve(inp.file_path)]

    async def run(self, inp: Any, ctx: ToolContext) -> ToolResult:
        _check_change(inp)
        return await asyncio.to_thread(_edit, inp, ctx.workspace)


def _check_change(inp: Any) -> None:
    if inp.old_string == inp.new_string:
        raise ToolError("old_string and new_string are identical, so there is no change to make.")


# --- the replacement itself (pure, no I/O) ----------------------------------------


@dataclass(slots=True)
class Replacement:
    """The text after an edit, and where the new text landed in it."""

    text: str
    count: int
    spans: list[tuple[int, int]] = field(default_factory=list)  # [start, end) in `text`


def occurrences(haystack: str, needle: str, *, overlapping: bool) -> list[int]:
    """Start offsets of `needle` in `haystack`."""
    found: list[int] = []
    step = 1 if overlapping else max(len(needle), 1)
    at = haystack.find(needle)
    while at != -1:
        found.append(at)
        at = haystack.find(needle, at + step)
    return found


def replace_exact(
    text: str, old: str, new: str, *, replace_all: bool, newline: str, display: str
) -> Replacement:
    """`text` with `old` replaced by `new`; ToolError when that is not one clear edit.

    `old` and `new` are taken with LF line breaks (CRLF in them counts as LF);
    the match ignores whether the file breaks a line with LF or CRLF, and
    `new` is written with `newline`. Text outside the matched spans is copied
    untouched. Uniqueness counts overlapping matches too ("aa" in "aaa" is
    ambiguous); replace_all replaces the non-overlapping ones, left to right.
    """
    folded, crlf_at = _fold_crlf(text)
    needle = old.replace("\r\n", "\n")
    matches = occurrences(folded, needle, overlapping=not replace_all)
    if not matches:
        raise ToolError(_not_found_message(display))
    if len(matches) > 1 and not replace_all:
        raise ToolError(
            f"old_string occurs {len(matches)} times in {display}, so the edit is ambiguous. "
            "Add surrounding lines to old_string until it matches only the place you mean, "
            "or set replace_all to true to change every occurrence."
        )

    def real(index: int) -> int:  # offset in the folded view -> offset in `text`
        return index + bisect_left(crlf_at, index)

    insert = to_newline(new, newline)
    pieces: list[str] = []
    spans: list[tuple[int, int]] = []
    copied_to = 0
    length = 0
    for start in matches:
        begin, end = real(start), real(start + len(needle))
        pieces.append(text[copied_to:begin])
        length += begin - copied_to
        pieces.append(insert)
        spans.append((length, length + len(insert)))
        length += len(insert)
        copied_to = end
    pieces.append(text[copied_to:])
    return Replacement("".join(pieces), len(matches), spans)


def _fold_crlf(text: str) -> tuple[str, list[int]]:
    """`text` with CRLF as LF, and the offsets (in the folded text) of the folded LFs."""
    if "\r\n" not in text:
        return text, []
    positions: list[int] = []
    at = text.find("\r\n")
    while at != -1:
        positions.append(at - len(positions))
        at = text.find("\r\n", at + 2)
    return text.replace("\r\n", "\n"), positions


def _not_found_message(display: str) -> str:
    return (
        f"old_string was not found in {display}. It must match the file exactly: same "
        "characters, same whitespace and indentation (tabs vs spaces), same line breaks. "
        "Do not include the line-number prefix (number and tab) that Read puts before each "
        "line. If unsure of the current text, Read the file again."
    )


# --- the blocking part, run in a worker thread ---------------------------------------


@dataclass(slots=True)
class EditPlan:
    """An edit worked out in full but not yet written: what the person is shown
    before allowing it, and what `run()` writes (after checking again that the
    file did not change meanwhile)."""

    path: Path
    display: str
    old_text: str
    new_text: str
    new_data: bytes | None  # None: the file does not exist yet and is created
    seen: os.stat_result | None
    result: Replacement

    def diff(self) -> DiffDisplay:
        return build_diff(self.display, self.old_text, self.new_text)


def plan_edit(inp: Any, workspace: Workspace) -> EditPlan:
    """Everything short of writing: ToolError when the edit cannot apply as it stands."""
    path = workspace.resolve(inp.file_path)
    display = workspace.display_path(path)
    st = stat_for_change(path, display)
    if st is None:
        if inp.old_string:
            raise ToolError(
                missing_file_message(path, display, workspace)
                + " To create a new file, use the Write tool (or Edit with an empty old_string)."
            )
        created = Replacement(inp.new_string, 1, [(0, len(inp.new_string))])
        return EditPlan(path, display, "", inp.new_string, None, None, created)

    ensure_read_and_fresh(workspace, path, st, display, "editing it")
    data, seen_st = read_current(workspace, path, display)
    if looks_binary(data):
        raise ToolError(f"{display} is a binary file; Edit only changes text files.")
    try:
        old_text, fmt = decode_text(data)
    except UnicodeDecodeError:
        raise ToolError(f"{display} cannot be decoded as the text its byte order mark announces.")

    if not inp.old_string:
        if old_text:
            raise ToolError(
                f"old_string is empty, but {display} already has content. Give the exact text "
                "to replace, or use Write to replace the whole file."
            )
        filled = to_newline(inp.new_string, fmt.newline)
        result = Replacement(filled, 1, [(0, len(filled))])
    else:
        result = replace_exact(
            old_text,
            inp.old_string,
            inp.new_string,
            replace_all=inp.replace_all,
            newline=fmt.newline,
            display=display,
        )
    if result.text == old_text:
        raise ToolError(
            "The edit would leave the file unchanged (old_string and new_string differ only "
            "in line endings), so there is no change to make."
        )
    new_data = _encode(result.text, fmt, display)
    return EditPlan(path, display, old_text, result.text, new_data, seen_st, result)


def _edit(inp: Any, workspace: Workspace) -> ToolResult:
    plan = plan_edit(inp, workspace)
    if plan.new_data is None or plan.seen is None:
        return _create(plan.path, plan.display, plan.new_text, workspace)
    replace_checked(
        workspace,
        plan.path,
        plan.new_data,
        plan.seen,
        plan.display,
        "while the edit was being made",
    )
    return ToolResult(_report(plan.display, plan.result, inp.replace_all), display=plan.diff())


def _create(path: Path, display: str, content: str, workspace: Workspace) -> ToolResult:
    create_file(workspace, path, content, display)
    lines = count_lines(content)
    return ToolResult(
        f"Created {display} ({lines} line{'s' if lines != 1 else ''}), since it did not exist "
        "and old_string was empty.",
        display=CreatedDisplay(path=display, lines=lines),
    )


def _encode(text: str, fmt: TextFormat, display: str) -> bytes:
    try:
        return fmt.encode(text)
    except UnicodeEncodeError as exc:
        bad = exc.object[exc.start : exc.end]
        raise ToolError(
            f"{display} is stored as {fmt.label}, which cannot represent {bad!r} in "
            "new_string. Use characters that encoding has (or an escape the file's language "
            "understands)."
        )


def _report(display: str, result: Replacement, replace_all: bool) -> str:
    if replace_all:
        times = "occurrence" if result.count == 1 else "occurrences"
        head = f"Edited {display}: replaced {result.count} {times} of old_string."
    else:
        head = f"Edited {display}."
    snippet = _snippet(result)
    if not snippet:
        return head + " The file is now empty."
    shown = result.spans[:MAX_SNIPPETS]
    more = len(result.spans) - len(shown)
    tail = f"\n(Snippets shown for the first {len(shown)} of {result.count}.)" if more else ""
    return f"{head} The changed part now reads (`cat -n` style):\n{snippet}{tail}"


def _snippet(result: Replacement) -> str:
    """Numbered lines around each change (merged where they meet), "..." between them."""
    lines = split_lines(result.text)
    if not lines:
        return ""
    windows: list[list[int]] = []
    for begin, end in result.spans[:MAX_SNIPPETS]:
        first = result.text.count("\n", 0, begin) + 1
        last = result.text.count("\n", 0, max(begin, end - 1)) + 1
        low = max(1, first - SNIPPET_CONTEXT)
        high = min(len(lines), last + SNIPPET_CONTEXT)
        low = min(low, high)
        if windows and low <= windows[-1][1] + 1:
            windows[-1][1] = max(windows[-1][1], high)
        else:
            windows.append([low, high])
    parts = [number_lines(lines[low - 1 : high], first=low) for low, high in windows]
    return "\n   ...\n".join(parts)
