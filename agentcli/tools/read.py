"""Read: show the model a file as numbered lines, or an image as an image block.

Text is streamed: the file is read line by line and reading stops once the
requested window (and one line past it, to know whether more follow) is in
hand, so the first 2000 lines of a 1 GB log cost what they cost in a small
file. Only files up to `COUNT_LINES_UP_TO` bytes are read to the end to say
how many lines they have; for bigger ones the note just says more follow.
"""

from __future__ import annotations

import asyncio
import io
import os
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO, ClassVar, TextIO

from pydantic import Field

from agentcli.core.images import MAX_SOURCE_BYTES, ImageProblem, fit_image, sniff_image
from agentcli.core.messages import ResultPart
from agentcli.tools.base import (
    RESULT_BUDGET_CHARS,
    FileTool,
    ToolContext,
    ToolError,
    ToolResult,
    Workspace,
)
from agentcli.tools.display import ImageDisplay, ReadDisplay
from agentcli.tools.fileio import (
    FALLBACK_ENCODING,
    MAX_LINE_CHARS,
    SNIFF_BYTES,
    TextFormat,
    cut_marker,
    looks_binary,
    missing_file_message,
    number_line,
    record_read,
    sniff_bom,
)
from agentcli.tools.inputs import PathText, ToolInput

DEFAULT_LIMIT = 2000
# Past this many characters of output the read stops at a line boundary (and says
# where to go on): under the tool-result budget, with room for the notes, so the
# engine never has to cut a Read in the middle.
MAX_OUTPUT_CHARS = RESULT_BUDGET_CHARS - 1_000
# Files up to this size are read to the end to report their total line count.
COUNT_LINES_UP_TO = 8 * 1024 * 1024
MAX_IMAGE_BYTES = MAX_SOURCE_BYTES  # read at all; what is sent is made to fit (core/images.py)
# How many lines are skipped between two looks at the abort signal.
_ABORT_CHECK_EVERY = 4096

IMAGE_EXTENSIONS = {
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".gif": "image/gif",
    ".webp": "image/webp",
}


class ReadInput(ToolInput):
    file_path: PathText = Field(
        description="Absolute path of the file to read (a relative path is taken from the "
        "project folder)."
    )
    offset: int | None = Field(
        default=None,
        ge=0,
        description="Line number to start at, counting from 1. Give it only for a part of "
        "a long file; by default reading starts at line 1.",
    )
    limit: int | None = Field(
        default=None,
        ge=1,
        description=f"How many lines to return at most (default {DEFAULT_LIMIT}). Give it only "
        "for a part of a long file.",
    )
    pages: str | None = Field(
        default=None,
        max_length=40,
        description='Page range for PDF files (e.g., "1-5", "3", "10-20"). Only applicable to '
        "PDF files. Maximum 20 pages per request.",
    )


class ReadTool(FileTool):
    name = "Read"
    input_model: ClassVar[type[ToolInput]] = ReadInput
    read_only: ClassVar[bool] = True
    concurrency_safe: ClassVar[bool] = True

    async def run(self, inp: Any, ctx: ToolContext) -> ToolResult:
        workspace = ctx.workspace
        path = workspace.resolve(inp.file_path)
        display = workspace.display_path(path)
        start = max(inp.offset or 1, 1)
        limit = inp.limit or DEFAULT_LIMIT
        abort = ctx.abort

        def aborted() -> bool:  # polled from the worker thread during long scans
            return abort.aborted

        return await asyncio.to_thread(
            _read, path, display, start, limit, workspace, aborted, inp.pages
        )


# --- the blocking part, run in a worker thread --------------------------------------


def _read(
    path: Path,
    display: str,
    start: int,
    limit: int,
    workspace: Workspace,
    aborted: Callable[[], bool],
    pages: str | None = None,
) -> ToolResult:
    _check_kind(path, display, workspace)  # before open(): opening a FIFO would block
    try:
        handle = open(path, "rb")  # noqa: SIM115 - closed below, also on error
    except OSError as exc:
        raise _open_error(exc, path, display, workspace)
    with handle:
        st = os.fstat(handle.fileno())
        if not stat.S_ISREG(st.st_mode):  # replaced between the check and the open
            raise ToolError(f"{display} is not a regular file; Read only reads files.")
        head = handle.read(SNIFF_BYTES)
        media_type = _image_type(path, head, display)
        is_pdf = path.suffix.lower() == ".pdf" or head.startswith(b"%PDF-")
        if pages is not None and not is_pdf:
            raise ToolError(
                f"pages is only for PDF files, and {display} is not one. Use offset and "
                "limit to read a part of a text file."
            )
        if is_pdf and st.st_size > 0:
            from agentcli.tools.pdf import read_pdf

            result = read_pdf(handle.fileno(), display, pages, aborted)
        elif path.suffix.lower() == ".ipynb" and st.st_size > 0:
            from agentcli.tools.notebook import read_notebook

            result = read_notebook(handle, head, st.st_size, path, display, workspace)
        elif media_type is not None:
            result = _read_image(handle, head, st.st_size, media_type, display)
        elif looks_binary(head):
            raise ToolError(
                f"{display} is a binary file (it contains NUL bytes), not readable as text. "
                "Inspect it with a suitable command through Bash instead (e.g. `file`, "
                "`xxd | head`)."
            )
        elif workspace.editor is not None:  # the editor's buffer, saved or not
            text = workspace.editor.read_text(path)
            window = _collect(io.StringIO(text), start, limit, len(text), aborted, "utf-8")
            result = _window_result(window if text else None, display, start)
        elif st.st_size == 0:
            result = _window_result(None, display, start)
        else:
            handle.seek(0)
            window = _read_window(handle, head, start, limit, st.st_size, aborted)
            result = _window_result(window, display, start)
        record_read(workspace, path, st)
        return result


def _window_result(window: _Window | None, display: str, start: int) -> ToolResult:
    """What the model gets for `window` of a text (None: the file is empty)."""
    if window is None:
        return ToolResult(
            f"(The file {display} exists but is empty: it has no lines.)",
            display=ReadDisplay(path=display, lines=0),
        )
    if window.beyond_end:
        total = window.total_lines
        return ToolResult(
            f"{display} has only {total} line{'s' if total != 1 else ''}, so there is "
            f"nothing to show from offset={start}. Use an offset between 1 and {total}.",
            display=ReadDisplay(path=display, lines=0),
        )
    return ToolResult(
        _render(window),
        display=ReadDisplay(
            path=display,
            lines=len(window.lines),
            offset=start,
            truncated=window.more,
            encoding=window.encoding,
        ),
    )


def _check_kind(path: Path, display: str, workspace: Workspace) -> None:
    """Refuse what is not a regular file, with a message that says what it is."""
    try:
        st = os.stat(path)
    except OSError as exc:
        raise _open_error(exc, path, display, workspace)
    if stat.S_ISDIR(st.st_mode):
        raise ToolError(_directory_message(display))
    if not stat.S_ISREG(st.st_mode):
        raise ToolError(
            f"{display} is not a regular file (a device, socket or pipe); Read only reads files."
        )


def _open_error(exc: OSError, path: Path, display: str, workspace: Workspace) -> ToolError:
    if isinstance(exc, FileNotFoundError):
        return ToolError(missing_file_message(path, display, workspace))
    if isinstance(exc, IsADirectoryError):
        return ToolError(_directory_message(display))
    if isinstance(exc, NotADirectoryError):
        return ToolError(f"File does not exist: {display} (a part of its path is not a folder).")
    if isinstance(exc, PermissionError):
        return ToolError(f"Permission denied: cannot read {display}.")
    return ToolError(f"Cannot read {display}: {exc.strerror or exc}.")


def _directory_message(display: str) -> str:
    return (
        f"{display} is a directory, not a file. To see what it holds use the Glob tool "
        "(e.g. pattern `*` in it) or `ls` through the Bash tool."
    )


# --- images ------------------------------------------------------------------------


def _image_type(path: Path, head: bytes, display: str) -> str | None:
    """The media type if the file is to be shown as an image, else None.

    An image extension must be backed by matching magic bytes (the API checks
    the data); the media type comes from the bytes, so a JPEG named .png still
    works. A binary file without such an extension is shown as an image too
    when its bytes say it is one.
    """
    sniffed = sniff_image(head)
    if path.suffix.lower() in IMAGE_EXTENSIONS:
        if sniffed is None:
            if not looks_binary(head):
                return None  # empty, or text under an image name: read it as text
            raise ToolError(
                f"{display} has an image extension but its content is not a PNG, JPEG, "
                "GIF or WebP image."
            )
        return sniffed
    if sniffed is not None and looks_binary(head):
        return sniffed
    return None


def _read_image(
    handle: BinaryIO, head: bytes, size: int, media_type: str, display: str
) -> ToolResult:
    """The image as the API takes it in any conversation (core/images.py: scaled past
    2000 px a side or 5 MB, refused when it cannot be decoded)."""
    if size > MAX_IMAGE_BYTES:
        raise ToolError(
            f"{display} is an image of {size / 1024 / 1024:.1f} MB, more than the "
            f"{MAX_IMAGE_BYTES // 1024 // 1024} MB that Read can return. Shrink it first "
            "(e.g. with an image tool through Bash) and read the smaller copy."
        )
    data = head + handle.read(MAX_IMAGE_BYTES + 1 - len(head))
    if len(data) > MAX_IMAGE_BYTES:  # grew since stat
        raise ToolError(f"{display} is larger than the {MAX_IMAGE_BYTES} bytes Read can return.")
    try:
        fitted = fit_image(data)
    except ImageProblem as problem:
        raise ToolError(f"{display} could not be shown as an image: {problem}.") from None
    content: list[ResultPart] = [fitted.block()]
    scaled_from = fitted.resized_from  # its size, also when only encoded smaller
    if scaled_from is not None and scaled_from != (fitted.width, fitted.height):
        width, height = scaled_from
        content.append(
            {
                "type": "text",
                "text": f"[{display} was scaled from {width}×{height} to "
                f"{fitted.width}×{fitted.height} to fit the API's limits: positions in "
                "the picture are at that scale]",
            }
        )
    return ToolResult(
        content,
        display=ImageDisplay(path=display, media_type=fitted.media_type, size=len(fitted.data)),
    )


# --- text --------------------------------------------------------------------------


@dataclass(slots=True)
class _Window:
    lines: list[str]  # numbered, ready to join
    start: int
    more: bool  # lines exist after the window
    total_lines: int | None  # known when the file was read to the end
    stopped_for_size: bool  # cut by MAX_OUTPUT_CHARS rather than the limit
    encoding: str
    beyond_end: bool = False


def _read_window(
    handle: BinaryIO,
    head: bytes,
    start: int,
    limit: int,
    size: int,
    aborted: Callable[[], bool],
) -> _Window:
    """Lines `start`..`start+limit-1`, decoded; UTF-8 first, Latin-1 if that fails.

    A decoding error can only show up in the part actually read, so the retry
    with Latin-1 re-reads the same short stretch, never the whole file.
    """
    found = sniff_bom(head)
    if found is not None:
        codecs = [TextFormat(encoding=found[1], bom=found[0]).stream_codec]
    else:
        codecs = ["utf-8", FALLBACK_ENCODING]
    for codec in codecs:
        handle.seek(0)
        text = io.TextIOWrapper(handle, encoding=codec, errors="strict", newline="\n")
        try:
            return _collect(text, start, limit, size, aborted, codec)
        except UnicodeDecodeError:
            if codec == codecs[-1]:
                raise ToolError(
                    f"The file cannot be decoded as {codec} although it starts with a "
                    "byte order mark for it; it may be corrupt."
                )
        finally:
            text.detach()
    raise AssertionError("unreachable")


def _collect(
    text: TextIO,
    start: int,
    limit: int,
    size: int,
    aborted: Callable[[], bool],
    codec: str,
) -> _Window:
    lines: list[str] = []
    used = 0
    number = 0
    stopped_for_size = False
    more = False
    reader = _iter_lines(text, aborted)
    for number, (line, cut) in enumerate(reader, start=1):
        if number < start:
            if number % _ABORT_CHECK_EVERY == 0 and aborted():
                raise ToolError("Read was interrupted.")
            continue
        if len(lines) >= limit:
            more = True
            break
        shown = number_line(number, line + cut_marker() if cut else line)
        if lines and used + len(shown) > MAX_OUTPUT_CHARS:
            more, stopped_for_size = True, True
            break
        lines.append(shown)
        used += len(shown) + 1
    total: int | None = None
    if not more:
        total = number
    elif size <= COUNT_LINES_UP_TO:
        total = number + sum(1 for _ in reader)
    encoding = "utf-8" if codec in ("utf-8", "utf-8-sig") else codec
    return _Window(
        lines=lines,
        start=start,
        more=more,
        total_lines=total,
        stopped_for_size=stopped_for_size,
        encoding=encoding,
        beyond_end=not lines,
    )


def _iter_lines(text: TextIO, aborted: Callable[[], bool]) -> Iterator[tuple[str, bool]]:
    """(line without its ending, was it cut) for each line, never holding a long line whole.

    A line longer than MAX_LINE_CHARS is yielded cut; the rest of it is
    skipped in bounded pieces only when the next line is asked for.
    """
    probe = MAX_LINE_CHARS + 2  # room for the text, a CR and the LF
    while True:
        chunk = text.readline(probe)
        if not chunk:
            return
        if chunk.endswith("\n"):
            body = chunk[:-2] if chunk.endswith("\r\n") else chunk[:-1]
            yield body[:MAX_LINE_CHARS], len(body) > MAX_LINE_CHARS
        elif len(chunk) < probe:  # last line, no newline at the end
            yield chunk[:MAX_LINE_CHARS], len(chunk) > MAX_LINE_CHARS
        else:
            yield chunk[:MAX_LINE_CHARS], True
            _skip_rest_of_line(text, aborted)


def _skip_rest_of_line(text: TextIO, aborted: Callable[[], bool]) -> None:
    while True:
        part = text.readline(1 << 16)
        if not part or part.endswith("\n"):
            return
        if aborted():
            raise ToolError("Read was interrupted.")


def _render(window: _Window) -> str:
    body = "\n".join(window.lines)
    notes = []
    if window.more:
        last = window.start + len(window.lines) - 1
        shown = f"Showing lines {window.start}-{last}"
        if window.total_lines is not None:
            shown += f" of {window.total_lines}"
        else:
            shown += "; more lines follow"
        why = " (output size limit reached)" if window.stopped_for_size else ""
        notes.append(f"{shown}{why}. To read on, call Read with offset={last + 1}.")
    if window.encoding != "utf-8":
        notes.append(
            f"The file is not UTF-8; it was decoded as {window.encoding}. Edits keep that encoding."
        )
    if notes:
        body += "\n\n" + "\n".join(f"({n})" for n in notes)
    return body
