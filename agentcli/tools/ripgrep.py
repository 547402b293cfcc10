"""Locating the ripgrep binary and running it, never through a shell.

Grep and Glob both sit on ripgrep: it walks trees in parallel, honours
.gitignore, and is far faster than anything written in Python. The `ripgrep`
wheel (a project dependency) drops `rg` next to the venv's interpreter, which is
why that place is tried before PATH: the version we test against wins over
whatever the machine happens to have.
"""

from __future__ import annotations

import asyncio
import os
import selectors
import shutil
import subprocess
import sys
import sysconfig
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from agentcli.tools.base import ToolError

_EXE = "rg.exe" if os.name == "nt" else "rg"

# Version-control folders: searchable as hidden files otherwise, never useful.
VCS_EXCLUDES = ("!.git", "!.svn", "!.hg", "!.bzr", "!.jj")
# A name with a line break would read as two paths in rg's line-based output, one
# of them made up (and judged by the permission rules as such): never searched.
ALWAYS_EXCLUDED = (*VCS_EXCLUDES, "!*\n*")

_found: str | None = None


def find_rg() -> str:
    """The path of the `rg` binary, or a ToolError telling how to get one."""
    global _found
    if _found is None:
        _found = _locate()
    if _found is None:
        raise ToolError(
            "ripgrep (rg) was not found. Install the `ripgrep` Python package into this "
            "environment (pip install ripgrep) or put `rg` on PATH."
        )
    return _found


def _locate() -> str | None:
    # sys.executable is deliberately not resolved: in a venv it is a symlink and
    # the venv's bin folder (where the wheel put rg) is its unresolved parent.
    candidates = [Path(sys.executable).parent / _EXE]
    scripts = sysconfig.get_path("scripts")
    if scripts:
        candidates.append(Path(scripts) / _EXE)
    for candidate in candidates:
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    return shutil.which("rg")


@dataclass(slots=True)
class RgOutput:
    """What one rg run produced.

    `returncode` follows rg: 0 matches, 1 no match, 2 error (possibly with
    results too, e.g. one unreadable file). `stopped_early` means we had enough
    lines and killed rg; its return code then says nothing.
    """

    returncode: int
    stdout: bytes
    stderr: str
    stopped_early: bool = False

    def error_text(self) -> str:
        return self.stderr.strip() or f"rg failed with exit code {self.returncode}"


_STDERR_CAP = 64 * 1024


async def run_rg(
    args: list[str],
    cwd: Path,
    *,
    max_lines: int | None = None,
    on_line: Callable[[bytes], None] | None = None,
) -> RgOutput:
    """Run `rg *args` in `cwd` and collect its output.

    The output is read with blocking reads in a worker thread: on Python 3.11
    that costs about 0.7 ms less per call than asyncio's subprocess transports
    (which also start a thread per child to wait for it), and a Grep call pays
    it every time. With `max_lines`, rg is stopped as soon as more than that
    many lines have arrived: a head-limited search over a big tree does not pay
    for results it would throw away. rg is killed if the calling task is
    cancelled; the reader thread then sees the pipes close and ends.
    `on_line` is called (in that thread) with each output line as it arrives,
    so per-line work overlaps rg's own search time.
    """
    proc = subprocess.Popen(
        [find_rg(), *args],
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        return await asyncio.to_thread(_collect, proc, max_lines, on_line)
    except BaseException:
        _kill(proc)
        raise


def _collect(
    proc: subprocess.Popen[bytes],
    max_lines: int | None,
    on_line: Callable[[bytes], None] | None,
) -> RgOutput:
    """Read stdout and stderr together (neither pipe can fill and stall rg)."""
    assert proc.stdout is not None and proc.stderr is not None
    partial = b""
    chunks: list[bytes] = []
    errors = bytearray()
    lines = 0
    stopped = False
    with selectors.DefaultSelector() as selector:
        selector.register(proc.stdout, selectors.EVENT_READ)
        selector.register(proc.stderr, selectors.EVENT_READ)
        while selector.get_map():
            for key, _ in selector.select():
                data = os.read(key.fd, 1 << 16)
                if not data:
                    selector.unregister(key.fileobj)
                elif key.fileobj is proc.stderr:
                    errors += data[: max(0, _STDERR_CAP - len(errors))]
                elif not stopped:
                    chunks.append(data)
                    if on_line is not None:
                        *complete, partial = (partial + data).split(b"\n")
                        for line in complete:
                            on_line(line)
                    if max_lines is not None:
                        lines += data.count(b"\n")
                        if lines > max_lines:
                            stopped = True
                            _kill(proc)
    if on_line is not None and partial and not stopped:
        on_line(partial)
    returncode = proc.wait()
    proc.stdout.close()
    proc.stderr.close()
    return RgOutput(returncode, b"".join(chunks), errors.decode("utf-8", "replace"), stopped)


def _kill(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        try:
            proc.kill()
        except ProcessLookupError:
            pass


def split_globs(value: str) -> list[str]:
    """Split a glob argument on whitespace and on commas outside braces.

    `*.py *.md`, `*.py,*.md` and `*.{ts,tsx}` all mean what a person expects.
    """
    globs: list[str] = []
    current: list[str] = []
    depth = 0
    for char in value:
        if char == "{":
            depth += 1
        elif char == "}" and depth:
            depth -= 1
        if (char.isspace() or (char == "," and depth == 0)) and depth == 0:
            if current:
                globs.append("".join(current))
                current = []
            continue
        current.append(char)
    if current:
        globs.append("".join(current))
    return globs
