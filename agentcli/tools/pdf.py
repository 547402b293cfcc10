"""Read of a PDF: the text of each page asked for, and a picture of a page with little
text (a scan, a diagram), as Claude Code's Read does with `pages`.

Limits are Claude Code's: at most `MAX_PAGES_PER_READ` pages a call (`pages`: "3",
"1-5"); without `pages`, a PDF of up to `PAGES_WITHOUT_RANGE` pages is read whole,
and of a longer one its page count and first `PAGES_WITHOUT_RANGE` pages come back,
with how to ask for the others (the issue asks for that; Claude Code refuses it).

The PDF is opened by a child process (tools/pdf_worker.py, PDFium through
pypdfium2) under limits on memory, CPU time and wall time, and handed the very
file descriptor Read checked: a hostile file (a decompression bomb, a page that
renders to a huge bitmap, a page tree of a billion pages, a crash in the C
library) ends the child, never agentcli, and the model gets one sentence. Pages
that arrived before the child stopped are kept. Where bubblewrap works, the child
also runs confined (sandbox/confine.py): a file that took PDFium over would find
no network and none of the person's files. Nothing here imports PDFium:
agentcli's start does not pay for it.
"""

from __future__ import annotations

import json
import os
import re
import select
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

from agentcli.core.messages import ImageBlock, ResultPart, TextBlock
from agentcli.tools.base import RESULT_BUDGET_CHARS, ToolError, ToolResult
from agentcli.tools.display import PdfDisplay

MAX_PAGES_PER_READ = 20
PAGES_WITHOUT_RANGE = 10
# The page text the result holds at most, shared out between the pages read.
MAX_TEXT_CHARS = RESULT_BUDGET_CHARS - 2_000
# The child: this Python, isolated from the environment's PYTHON* variables and cwd.
WORKER_COMMAND = (sys.executable, "-I", "-m", "agentcli.tools.pdf_worker")
_PAGES = re.compile(r"\s*(\d{1,9})\s*(?:-\s*(\d{1,9})\s*)?")


@dataclass(frozen=True, slots=True)
class PdfLimits:
    """What the child may use, and how pages are drawn (the defaults are for real use;
    tests narrow them)."""

    memory_bytes: int = 1 << 30  # address space, PDFium's and Python's together
    cpu_seconds: int = 60
    wall_seconds: float = 120.0
    dpi: int = 100
    max_edge_px: int = 1568  # the API's recommended longest side
    image_bytes: int = 3_500_000  # one PNG (under the API's 5 MB once in base64)
    images_total_bytes: int = 12_000_000  # base64 of all the pictures of one call
    text_chars_per_page: int = 100_000
    little_text_chars: int = 200  # fewer letters than this: the page is drawn too


def parse_pages(spec: str) -> tuple[int, int]:
    """(first, last), 1-based and inclusive, of "3" or "1-5"; ToolError otherwise."""
    match = _PAGES.fullmatch(spec)
    if match is None:
        raise ToolError(f'pages must be one page ("3") or a range ("1-5"), not {spec!r}.')
    first = int(match.group(1))
    last = int(match.group(2)) if match.group(2) else first
    if first < 1 or last < first:
        raise ToolError(
            f"pages {spec!r} is not a range of pages: pages count from 1, and a range "
            'goes from a lower page to a higher one ("2-4").'
        )
    if last - first + 1 > MAX_PAGES_PER_READ:
        raise ToolError(
            f"pages {spec!r} asks for {last - first + 1} pages; Read returns at most "
            f"{MAX_PAGES_PER_READ} pages a call. Ask for a shorter range, e.g. "
            f'pages: "{first}-{first + MAX_PAGES_PER_READ - 1}".'
        )
    return first, last


def read_pdf(
    fd: int,
    display: str,
    pages: str | None,
    aborted: Callable[[], bool],
    limits: PdfLimits | None = None,
) -> ToolResult:
    """The result of Read for the PDF open on `fd` (blocking: run it in a thread)."""
    limits = limits or PdfLimits()
    wanted = parse_pages(pages) if pages is not None else None
    first, last = wanted or (1, PAGES_WITHOUT_RANGE)
    records, ended = _run_worker(fd, first, last, limits, aborted)
    head = records[0] if records else None
    if head is None or head.get("kind") == "error":
        raise ToolError(_open_failure(display, head, ended, limits))
    count = int(head["page_count"])
    if count == 0:
        raise ToolError(f"{display} is a PDF without pages: there is nothing to read.")
    more = None
    if wanted is None and count > PAGES_WITHOUT_RANGE:
        rest_last = min(count, PAGES_WITHOUT_RANGE + MAX_PAGES_PER_READ)
        more = (
            f"({display} has {count} pages; without `pages` Read shows the first "
            f"{PAGES_WITHOUT_RANGE}. Call Read again with pages for the others, e.g. "
            f'pages: "{PAGES_WITHOUT_RANGE + 1}-{rest_last}" (at most {MAX_PAGES_PER_READ} '
            "pages a call).)"
        )
    if first > count:
        raise ToolError(
            f"{display} has only {count} page{'s' if count != 1 else ''}, so there is no page "
            f"{first}. Ask for pages between 1 and {count}."
        )
    last = min(last, count)
    pages_read = [r for r in records[1:] if r.get("kind") == "page"]
    finished = any(r.get("kind") == "done" for r in records)
    return _result(display, count, first, last, pages_read, finished, ended, limits, more)


# --- the child ------------------------------------------------------------------------


def _run_worker(
    fd: int,
    first: int,
    last: int,
    limits: PdfLimits,
    aborted: Callable[[], bool],
) -> tuple[list[dict[str, Any]], str]:
    """The child's records, and how it ended: "exited", "killed:<signal>", "timed out",
    "too much output"."""
    request = {"fd": fd, "first": first, "last": last, **asdict(limits)}
    # No page's text beyond its share of the result (and one more, to know it was cut).
    share = MAX_TEXT_CHARS // (last - first + 1) + 1
    request["text_chars_per_page"] = min(limits.text_chars_per_page, share)
    from agentcli.sandbox.confine import confined

    with confined(WORKER_COMMAND) as command:  # no network, no person's files (confine.py)
        child = subprocess.Popen(
            command.argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            pass_fds=(fd, *command.pass_fds),
            start_new_session=True,  # a terminal's Ctrl+C is agentcli's to handle
        )
    assert child.stdin is not None and child.stdout is not None
    try:
        child.stdin.write(json.dumps(request).encode() + b"\n")
        child.stdin.close()
    except OSError:
        pass  # it died already: its exit says why
    most = limits.images_total_bytes + limits.image_bytes * 2 + MAX_TEXT_CHARS * 8 + (1 << 20)
    received = bytearray()
    deadline = time.monotonic() + limits.wall_seconds
    ended = "exited"
    end_of_output = False
    out = child.stdout.fileno()
    try:
        while True:
            if aborted():
                raise ToolError("Read was interrupted.")
            if time.monotonic() > deadline:
                ended = "timed out"
                break
            ready, _, _ = select.select([out], [], [], 0.1)
            if not ready:
                continue
            chunk = os.read(out, 1 << 16)
            if not chunk:
                end_of_output = True
                break
            received += chunk
            if len(received) > most:
                ended = "too much output"
                break
    finally:
        if end_of_output:  # it is exiting (or closed its output and hangs)
            try:
                child.wait(timeout=5)
            except subprocess.TimeoutExpired:
                ended = "timed out"
        if child.poll() is None:
            child.kill()
        child.wait()
        child.stdout.close()
    if ended == "exited" and child.returncode < 0:
        ended = f"killed:{-child.returncode}"
    elif ended == "exited" and child.returncode != 0:
        ended = "failed"
    return _records(bytes(received)), ended


def _records(data: bytes) -> list[dict[str, Any]]:
    """The complete JSON lines (a child killed mid-line leaves a partial last one)."""
    records = []
    for line in data.split(b"\n"):
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if isinstance(record, dict):
            records.append(record)
    return records


def _why_it_stopped(ended: str, limits: PdfLimits) -> str:
    if ended == "timed out":
        return f"it took longer than the {limits.wall_seconds:g} s allowed"
    if ended == "too much output":
        return "it gave more output than a Read can hold"
    if ended == f"killed:{int(signal.SIGXCPU)}":
        return f"it took more than the {limits.cpu_seconds} s of CPU time allowed"
    if ended.startswith("killed:") or ended == "failed":
        return (
            f"the PDF library stopped on it (it may need more than the "
            f"{limits.memory_bytes >> 20} MB of memory allowed, or the file is damaged)"
        )
    return "the PDF library stopped on it"


def _open_failure(display: str, head: dict[str, Any] | None, ended: str, limits: PdfLimits) -> str:
    code = head.get("code") if head else None
    if code == "missing":
        return (
            f"Read cannot open {display}: the PDF library pypdfium2 is not installed in "
            f"agentcli's environment or does not load here ({head.get('detail') if head else ''}). "
            "Install it (`pip install pypdfium2`), or read the text through Bash with a tool "
            "such as `pdftotext`."
        )
    if code == "password":
        return (
            f"{display} is an encrypted PDF that needs a password to open; Read cannot read "
            "it. Ask the person for a copy without the password."
        )
    if code == "security":
        return f"{display} is protected by a security scheme the PDF library does not support."
    if code in ("format", "file", "unknown"):
        return (
            f"{display} is not a PDF that can be opened: it is damaged or not a PDF "
            "(its structure could not be read)."
        )
    if code == "memory":
        return f"{display} needs more memory than the {limits.memory_bytes >> 20} MB allowed."
    return f"Read could not open {display}: {_why_it_stopped(ended, limits)}."


# --- the result -----------------------------------------------------------------------


def _result(
    display: str,
    count: int,
    first: int,
    last: int,
    pages: list[dict[str, Any]],
    finished: bool,
    ended: str,
    limits: PdfLimits,
    more: str | None = None,
) -> ToolResult:
    """`more`: what to say of the pages after these (a long PDF read without `pages`)."""
    share = MAX_TEXT_CHARS // max(1, last - first + 1)
    span = f"page {first}" if first == last else f"pages {first}-{last}"
    parts: list[ResultPart] = []
    lines = [f"{display}: PDF of {count} page{'s' if count != 1 else ''}; showing {span}."]
    images = 0
    for record in pages:
        number = int(record.get("number", 0))
        lines.append("")
        if "error" in record:
            lines.append(f"--- Page {number}: {record['error']} ---")
            continue
        text = str(record.get("text", "")).strip()
        lines.append(f"--- Page {number} ---")
        cut = bool(record.get("text_cut"))
        if len(text) > share:
            text, cut = text[:share], True
        lines.append(text if text else "(no text on this page)")
        if cut and first == last:
            lines.append(
                f"(The text of page {number} was cut at {len(text)} characters, the most a "
                "result holds; use `pdftotext` through Bash for all of it.)"
            )
        elif cut:
            lines.append(
                f"(The text of page {number} was cut; read this page on its own to see more.)"
            )
        if record.get("image"):
            lines.append(f"(Page {number} has little text; a picture of it follows.)")
            parts.append(_text_part(lines))
            lines = []
            parts.append(_image_part(str(record["image"])))
            images += 1
        elif record.get("image_skipped"):
            lines.append(
                f"(Page {number} has little text; no picture of it: {record['image_skipped']}.)"
            )
    got = len(pages)
    stopped_at = first + got
    if not finished and stopped_at <= last:
        lines.append("")
        after = ""
        if stopped_at < last:
            rest = f"{stopped_at + 1}-{last}" if stopped_at + 1 < last else f"{last}"
            after = f' The pages after it may still be read: pages: "{rest}".'
        lines.append(
            f"(Reading stopped at page {stopped_at}: {_why_it_stopped(ended, limits)}.{after})"
        )
    if more is not None:
        lines += ["", more]
    if lines:
        parts.append(_text_part(lines))
    return ToolResult(
        [p for p in parts if p.get("type") != "text" or p.get("text")],
        display=PdfDisplay(
            path=display, page_count=count, first=first, last=first + got - 1, images=images
        ),
    )


def _text_part(lines: list[str]) -> TextBlock:
    return {"type": "text", "text": "\n".join(lines).strip("\n")}


def _image_part(data: str) -> ImageBlock:
    return {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": data}}
