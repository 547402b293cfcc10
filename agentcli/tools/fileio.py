"""File helpers shared by the file tools (Read, Edit, Write) and any tool that needs them.

Four concerns live here, each small:

* text format: which encoding / BOM / line ending a file uses, so an edit can
  write the file back in exactly the form it was found in;
* line presentation: the `cat -n` style numbering the model sees, and the cut
  of over-long lines;
* read records: what Read saw of a file, and the check that Edit/Write run
  against it so they never overwrite a change they have not seen;
* atomic writes: a temp file in the same folder, fsync, `os.replace`, so a
  crash or an error never leaves a half-written file behind;
* the editor's copy: when the workspace has one (`Workspace.editor`, an ACP
  client's buffers), a text file's current content comes from it and a change
  goes to it (`read_current`, `replace_checked`, `create_file`).

Everything here is synchronous and blocking; async callers run it through
`asyncio.to_thread`.
"""

from __future__ import annotations

import contextlib
import difflib
import os
import secrets
import stat
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from agentcli.tools.base import FileSnapshot, ToolError, Workspace

# How much of a file's head is looked at to tell text from binary.
SNIFF_BYTES = 8192
# A line longer than this many characters is cut when shown to the model.
MAX_LINE_CHARS = 2000
# Width of the right-aligned line number column (`cat -n` uses 6).
LINE_NUMBER_WIDTH = 6

# Byte order marks, longest first: the UTF-32 LE mark starts with the UTF-16 LE one.
_BOMS: tuple[tuple[bytes, str], ...] = (
    (b"\xff\xfe\x00\x00", "utf-32-le"),
    (b"\x00\x00\xfe\xff", "utf-32-be"),
    (b"\xef\xbb\xbf", "utf-8"),
    (b"\xff\xfe", "utf-16-le"),
    (b"\xfe\xff", "utf-16-be"),
)
# Codecs that strip the BOM themselves, for streaming readers (io.TextIOWrapper).
_STREAM_CODECS = {
    "utf-32-le": "utf-32",
    "utf-32-be": "utf-32",
    "utf-8": "utf-8-sig",
    "utf-16-le": "utf-16",
    "utf-16-be": "utf-16",
}
# Every byte decodes in Latin-1 and encodes back to itself, so a file that is not
# UTF-8 still reads as text and an edit changes no byte outside the edited span.
FALLBACK_ENCODING = "latin-1"


# --- text format -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TextFormat:
    """How a text file is stored: the codec of its body, its BOM, its line ending.

    `encoding` never includes the BOM (it is kept apart in `bom`), so encoding
    a changed text with `encode()` puts back exactly the bytes the file had.
    """

    encoding: str = "utf-8"
    bom: bytes = b""
    newline: str = "\n"

    def encode(self, text: str) -> bytes:
        """The file's bytes for `text` (UnicodeEncodeError if a character does not fit)."""
        return self.bom + text.encode(self.encoding)

    @property
    def label(self) -> str:
        """A short human name: `utf-8`, `utf-8 with BOM`, `latin-1`..."""
        return f"{self.encoding} with BOM" if self.bom else self.encoding

    @property
    def stream_codec(self) -> str:
        """The codec for an `io.TextIOWrapper` reading the file from its first byte."""
        return _STREAM_CODECS[self.encoding] if self.bom else self.encoding


def sniff_bom(head: bytes) -> tuple[bytes, str] | None:
    """The (BOM, codec) that `head` starts with, if any."""
    for bom, codec in _BOMS:
        if head.startswith(bom):
            return bom, codec
    return None


def looks_binary(head: bytes) -> bool:
    """True when the first bytes hold a NUL and no UTF-16/32 BOM explains it.

    NUL almost never occurs in text, while nearly every binary format has one
    early on; UTF-16/32 text is full of NULs but announces itself with a BOM.
    """
    if b"\x00" not in head[:SNIFF_BYTES]:
        return False
    found = sniff_bom(head)
    return found is None or found[1] == "utf-8"


def detect_newline(text: str) -> str:
    """The line ending most lines use: "\\r\\n" when CRLF outnumbers bare LF, else "\\n"."""
    crlf = text.count("\r\n")
    if not crlf:
        return "\n"
    return "\r\n" if crlf > text.count("\n") - crlf else "\n"


def to_newline(text: str, newline: str) -> str:
    """`text` with every line break (LF or CRLF) written as `newline`."""
    text = text.replace("\r\n", "\n")
    return text.replace("\n", newline) if newline != "\n" else text


def decode_text(data: bytes) -> tuple[str, TextFormat]:
    """Decode a whole file's bytes and say how they were stored.

    A BOM decides the codec; without one UTF-8 is tried, then Latin-1 (which
    never fails). `TextFormat.encode()` of the returned text gives `data` back
    byte for byte. Raises UnicodeDecodeError only for a BOM file whose body
    does not match its BOM.
    """
    found = sniff_bom(data)
    if found is not None:
        bom, codec = found
        text = data[len(bom) :].decode(codec)
    else:
        bom = b""
        try:
            text, codec = data.decode("utf-8"), "utf-8"
        except UnicodeDecodeError:
            text, codec = data.decode(FALLBACK_ENCODING), FALLBACK_ENCODING
    return text, TextFormat(encoding=codec, bom=bom, newline=detect_newline(text))


def count_lines(text: str) -> int:
    """Lines as an editor numbers them: a final line without a newline still counts."""
    if not text:
        return 0
    return text.count("\n") + (0 if text.endswith("\n") else 1)


def split_lines(text: str) -> list[str]:
    """`text` cut at "\\n" only, line endings removed (CRLF too).

    Unlike `str.splitlines()`, form feeds, U+2028 and friends stay inside their
    line, so line numbers agree with Read, `grep -n` and editors.
    """
    if not text:
        return []
    parts = text.split("\n")
    if parts[-1] == "":
        parts.pop()
    return [p[:-1] if p.endswith("\r") else p for p in parts]


# --- line presentation ---------------------------------------------------------------


def cut_line(line: str, max_chars: int = MAX_LINE_CHARS) -> str:
    """`line`, cut to `max_chars` characters with a marker saying it was cut."""
    if len(line) <= max_chars:
        return line
    return line[:max_chars] + cut_marker(max_chars)


def cut_marker(max_chars: int = MAX_LINE_CHARS) -> str:
    """The note put after a line shortened to `max_chars` characters."""
    return f"… [line cut: longer than {max_chars} characters]"


def number_line(number: int, line: str) -> str:
    """One line in `cat -n` style: the number right-aligned in 6 columns, a tab, the text."""
    return f"{number:>{LINE_NUMBER_WIDTH}}\t{line}"


def number_lines(lines: Iterable[str], first: int = 1, max_chars: int = MAX_LINE_CHARS) -> str:
    """Lines numbered from `first` in `cat -n` style, long lines cut, joined by newlines."""
    return "\n".join(
        number_line(first + i, cut_line(line, max_chars)) for i, line in enumerate(lines)
    )


# --- read records ------------------------------------------------------------------


def snapshot_of(st: os.stat_result) -> FileSnapshot:
    """The part of a stat result that tells whether a file changed."""
    return FileSnapshot(mtime_ns=st.st_mtime_ns, size=st.st_size)


def record_read(workspace: Workspace, path: Path, st: os.stat_result) -> None:
    """Remember that the model has seen `path` as it is in `st` (keyed by absolute path)."""
    workspace.read_files[str(path)] = snapshot_of(st)


def ensure_read_and_fresh(
    workspace: Workspace, path: Path, st: os.stat_result, display: str, action: str
) -> FileSnapshot:
    """Refuse to change a file the model has not read, or that changed since it read it.

    `action` completes the sentence "Read it before ...", e.g. "editing it".
    Returns the recorded snapshot.
    """
    seen = workspace.read_files.get(str(path))
    if seen is None:
        raise ToolError(
            f"{display} has not been read in this session. Use the Read tool on it before {action}."
        )
    if seen != snapshot_of(st):
        raise ToolError(
            f"{display} was modified since it was last read (by the user, a formatter or "
            f"another process). Read it again before {action}, so the change is based on "
            "its current content."
        )
    return seen


# --- missing files -------------------------------------------------------------------


def similar_names(path: Path, limit: int = 3, scan_cap: int = 10_000) -> list[Path]:
    """Files in the same folder whose names look like `path`'s (a typo, a wrong extension)."""
    folder = path.parent
    try:
        with os.scandir(folder) as entries:
            names = [e.name for _, e in zip(range(scan_cap), entries, strict=False)]
    except OSError:
        return []
    wanted = path.name
    lowered = {n.lower(): n for n in names}
    picks: list[str] = []
    if wanted.lower() in lowered:
        picks.append(lowered[wanted.lower()])
    stem = Path(wanted).stem
    picks += [n for n in names if Path(n).stem == stem and n != wanted]
    picks += difflib.get_close_matches(wanted, names, n=limit, cutoff=0.6)
    unique = list(dict.fromkeys(p for p in picks if p != wanted))
    return [folder / n for n in unique[:limit]]


def missing_file_message(path: Path, display: str, workspace: Workspace | None = None) -> str:
    """Say that `path` does not exist, and point at what the model may have meant."""
    message = f"File does not exist: {display}."
    if not path.parent.exists():
        parent = workspace.display_path(path.parent) if workspace else str(path.parent)
        message += f" Its folder {parent} does not exist either."
        return message
    suggestions = similar_names(path)
    if suggestions:
        shown = ", ".join(str(s) for s in suggestions)
        message += f" Did you mean {shown}?"
    return message


# --- atomic writes -------------------------------------------------------------------


class FileChangedError(Exception):
    """The file on disk changed while a write was being prepared; nothing was written."""


def atomic_write(
    path: Path,
    data: bytes,
    *,
    mode: int | None = None,
    expected: FileSnapshot | None = None,
) -> os.stat_result:
    """Replace `path`'s content with `data` so readers see the old or the new file, never half.

    The bytes go to a temp file in the same folder (same file system, so
    `os.replace` is atomic), are flushed and fsynced, then renamed over the
    target, and the folder is fsynced so the rename survives a crash. `mode`
    sets the permission bits (keep an existing file's); without it the file
    gets 0o666 less the umask, as any new file would. With `expected`, the
    target is checked just before the rename and `FileChangedError` raised if
    it no longer matches. The temp file is removed on any failure. A symlink
    is followed: its target is rewritten and the link stays a link.

    Returns the stat of the written file.
    """
    target = Path(os.path.realpath(path))
    folder = target.parent
    tmp, fd = _create_temp(folder, target.name)
    try:
        with os.fdopen(fd, "wb") as handle:
            if mode is not None:
                os.fchmod(handle.fileno(), mode)
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if expected is not None:
            try:
                current = snapshot_of(os.stat(target))
            except FileNotFoundError:
                current = None
            if current != expected:
                raise FileChangedError(str(target))
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    fsync_dir(folder)
    return os.stat(target)


def _create_temp(folder: Path, name: str) -> tuple[Path, int]:
    """A new hidden temp file beside the target; created 0o666 so the umask applies."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
    while True:
        tmp = folder / f".{name}.{secrets.token_hex(4)}.tmp"
        try:
            return tmp, os.open(tmp, flags, 0o666)
        except FileExistsError:
            continue


def fsync_dir(folder: Path) -> None:
    """Flush a folder's entries (a rename) to disk; a no-op where folders can't be opened."""
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def permission_bits(st: os.stat_result) -> int:
    """The mode bits worth carrying over to a rewritten file (rwx, setuid/gid, sticky)."""
    return stat.S_IMODE(st.st_mode)


def stat_for_change(path: Path, display: str) -> os.stat_result | None:
    """The stat of a file about to be changed, None when it does not exist yet.

    Raises ToolError for what can never be edited as a file: a folder, a
    device or pipe, a path running through a file, an unreadable entry.
    """
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None
    except NotADirectoryError:
        raise ToolError(f"Cannot use {display}: a part of its path is a file, not a folder.")
    except OSError as exc:
        raise ToolError(f"Cannot access {display}: {exc.strerror or exc}.")
    if stat.S_ISDIR(st.st_mode):
        raise ToolError(f"{display} is a directory, not a file.")
    if not stat.S_ISREG(st.st_mode):
        raise ToolError(f"{display} is not a regular file (a device, socket or pipe).")
    return st


def read_bytes(path: Path, display: str) -> tuple[bytes, os.stat_result]:
    """A file's bytes and the stat of the very file they were read from."""
    try:
        with open(path, "rb") as handle:
            return handle.read(), os.fstat(handle.fileno())
    except PermissionError:
        raise ToolError(f"Permission denied: cannot read {display}.")
    except OSError as exc:
        raise ToolError(f"Cannot read {display}: {exc.strerror or exc}.")


def ensure_parent(path: Path, display: str) -> None:
    """Create the folders a new file needs, saying clearly when that is impossible."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        raise ToolError(f"Cannot create {display}: a part of its folder path is a file.")
    except PermissionError:
        raise ToolError(f"Permission denied: cannot create the folder for {display}.")
    except OSError as exc:
        raise ToolError(f"Cannot create the folder for {display}: {exc.strerror or exc}.")


def write_failure(display: str, exc: OSError) -> ToolError:
    """A ToolError for an OSError raised while writing `display`."""
    if isinstance(exc, PermissionError):
        return ToolError(f"Permission denied: cannot write {display}.")
    return ToolError(f"Cannot write {display}: {exc.strerror or exc}.")


def read_current(workspace: Workspace, path: Path, display: str) -> tuple[bytes, os.stat_result]:
    """A file's current bytes, and the stat of the file on disk.

    With an editor on the workspace, a text file's bytes are the editor's text (an
    unsaved buffer) in the file's own encoding, so an edit is made to what the
    person sees; a binary file is always read from disk.
    """
    data, st = read_bytes(path, display)
    editor = workspace.editor
    if editor is None or looks_binary(data):
        return data, st
    text = editor.read_text(path)
    try:
        fmt = decode_text(data)[1]
    except UnicodeDecodeError:
        fmt = TextFormat()
    try:
        return fmt.encode(text), st
    except UnicodeEncodeError:
        return text.encode("utf-8"), st


def create_file(workspace: Workspace, path: Path, content: str, display: str) -> None:
    """Create a new file (and its folders) holding `content` as UTF-8, through the
    editor when there is one, and record it as read."""
    ensure_parent(path, display)
    editor = workspace.editor
    if editor is not None:
        editor.write_text(path, content)
        _record_if_present(workspace, path)
        return
    try:
        written = atomic_write(path, content.encode("utf-8"))
    except OSError as exc:
        raise write_failure(display, exc)
    record_read(workspace, path, written)


def replace_checked(
    workspace: Workspace, path: Path, data: bytes, seen: os.stat_result, display: str, activity: str
) -> None:
    """Atomically replace a file the model read, refusing if it changed since `seen`.

    Keeps the mode bits and records the new snapshot, so the next Edit or Write
    of the same file needs no fresh Read. `activity` completes the refusal
    ("while the edit was being made"). With an editor on the workspace the new
    text goes to the editor, which writes the file.
    """
    changed = ToolError(
        f"{display} was modified by another process {activity}; nothing was written. "
        "Read it again and retry."
    )
    editor = workspace.editor
    if editor is not None:
        if _snapshot_now(path) != snapshot_of(seen):
            raise changed
        editor.write_text(path, decode_text(data)[0])
        _record_if_present(workspace, path)
        return
    try:
        written = atomic_write(path, data, mode=permission_bits(seen), expected=snapshot_of(seen))
    except FileChangedError:
        raise changed
    except OSError as exc:
        raise write_failure(display, exc)
    record_read(workspace, path, written)


def _snapshot_now(path: Path) -> FileSnapshot | None:
    try:
        return snapshot_of(os.stat(path))
    except OSError:
        return None


def _record_if_present(workspace: Workspace, path: Path) -> None:
    """Record the file the editor wrote as read (an editor that keeps the change in
    its buffer without saving leaves the disk as it was, which is recorded too)."""
    try:
        record_read(workspace, path, os.stat(path))
    except OSError:
        workspace.read_files.pop(str(path), None)
