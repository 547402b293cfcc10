"""Write: create a file, or replace a whole file the model has read.

The content is written exactly as given (its line endings are the model's
choice). An overwrite keeps the file's permission bits and, when the new
content fits in it, its encoding and BOM, since tools around the file (a
Windows editor, a legacy build) rely on those; content that does not fit is
written as UTF-8 and the result says so. Parent folders are created. The
write is atomic, like Edit's.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any, ClassVar

from pydantic import Field

from agentcli.tools.base import FileTool, ToolContext, ToolResult, Workspace
from agentcli.tools.diff import build_diff
from agentcli.tools.display import CreatedDisplay, DiffDisplay
from agentcli.tools.fileio import (
    TextFormat,
    count_lines,
    create_file,
    decode_text,
    ensure_read_and_fresh,
    looks_binary,
    read_current,
    record_read,
    replace_checked,
    stat_for_change,
)
from agentcli.tools.inputs import PathText, ToolInput


class WriteInput(ToolInput):
    file_path: PathText = Field(
        description="Absolute path of the file to write (a relative path is taken from the "
        "project folder). Missing parent folders are created."
    )
    content: str = Field(description="The complete new content of the file.")


class WriteTool(FileTool):
    name = "Write"
    input_model: ClassVar[type[ToolInput]] = WriteInput
    read_only: ClassVar[bool] = False
    concurrency_safe: ClassVar[bool] = False
    permission_title: ClassVar[str] = "Write file"

    async def permission_preview(self, inp: Any, workspace: Workspace) -> DiffDisplay:
        """The diff against the file as it is (all lines added for a new file); an
        overwrite of a file the model has not read, or that changed since, fails
        here, before the person is asked."""
        return await asyncio.to_thread(_preview, inp, workspace)

    def files_written(self, inp: Any, workspace: Workspace) -> list[Path]:
        return [workspace.resolve(inp.file_path)]

    async def run(self, inp: Any, ctx: ToolContext) -> ToolResult:
        return await asyncio.to_thread(_write, inp, ctx.workspace)


def _preview(inp: Any, workspace: Workspace) -> DiffDisplay:
    path = workspace.resolve(inp.file_path)
    display = workspace.display_path(path)
    st = stat_for_change(path, display)
    if st is None:
        return build_diff(display, "", inp.content)
    ensure_read_and_fresh(workspace, path, st, display, "overwriting it")
    old_data, _seen = read_current(workspace, path, display)
    return build_diff(display, _old_text(old_data) or "", inp.content)


def _write(inp: Any, workspace: Workspace) -> ToolResult:
    path = workspace.resolve(inp.file_path)
    display = workspace.display_path(path)
    content: str = inp.content
    lines = count_lines(content)
    size = f"{lines} line{'s' if lines != 1 else ''}"
    st = stat_for_change(path, display)

    if st is None:
        create_file(workspace, path, content, display)
        return ToolResult(
            f"Created {display} ({size}).",
            display=CreatedDisplay(path=display, lines=lines),
        )

    ensure_read_and_fresh(workspace, path, st, display, "overwriting it")
    old_data, seen_st = read_current(workspace, path, display)
    old_text = _old_text(old_data)
    fmt = _format_for(old_data)
    note = ""
    try:
        new_data = fmt.encode(content)
    except UnicodeEncodeError:
        new_data = content.encode("utf-8")
        note = f" It was stored as {fmt.label}, which cannot hold the new content; it is UTF-8 now."
    if new_data == old_data:
        record_read(workspace, path, seen_st)
        return ToolResult(
            f"{display} already has exactly this content; nothing was written.",
            display=build_diff(display, old_text or "", content),
        )
    replace_checked(workspace, path, new_data, seen_st, display, "while it was being written")
    if old_text is None:
        shown: CreatedDisplay | DiffDisplay = CreatedDisplay(path=display, lines=lines)
    else:
        shown = build_diff(display, old_text, content)
    return ToolResult(f"Updated {display} ({size}).{note}", display=shown)


def _old_text(data: bytes) -> str | None:
    """The previous content as text for the diff; None when it was not text."""
    if looks_binary(data):
        return None
    try:
        return decode_text(data)[0]
    except UnicodeDecodeError:
        return None


def _format_for(data: bytes) -> TextFormat:
    """The encoding and BOM to keep; the line ending is the content's own business."""
    if looks_binary(data):
        return TextFormat()
    try:
        fmt = decode_text(data)[1]
    except UnicodeDecodeError:
        return TextFormat()
    return TextFormat(encoding=fmt.encoding, bom=fmt.bom)
