"""The child process that opens a PDF for Read: text of each page, a PNG of a page with
little text.

A PDF is untrusted input for a C library (PDFium, through pypdfium2): a broken
cross-reference table, a page tree that claims a billion pages, a page the size
of a football field, a content stream that inflates to gigabytes. Run here,
under limits on memory and CPU time that this process sets on itself before it
touches the file, the worst such a file can do is end this process, which the
parent (tools/pdf.py) reports as one sentence. Nothing here is imported by
agentcli itself, and this module imports only the standard library and
pypdfium2 (lazily), so the child starts fast.

Protocol: one JSON request on stdin (`Request`'s fields); JSON lines on stdout,
each flushed: `{"kind": "doc", "page_count": N}`, then one `{"kind": "page", ...}`
per page read, then `{"kind": "done"}`; or `{"kind": "error", "code": ..., "detail":
...}` where it stops. The PDF comes as an inherited file descriptor, the very
file the parent checked.
"""

from __future__ import annotations

import base64
import json
import math
import os
import struct
import sys
import zlib
from typing import Any

# What pypdfium2's PdfiumError carries for FPDF_GetLastError (fpdfview.h).
_LOAD_ERRORS = {
    1: "unknown",
    2: "file",
    3: "format",
    4: "password",
    5: "security",
    6: "page",
}


def _emit(record: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(record) + "\n")
    sys.stdout.flush()


def _limit_self(memory_bytes: int, cpu_seconds: int) -> None:
    """Limits this process sets on itself: address space, CPU time, no files written."""
    import resource

    for kind, value in (
        (resource.RLIMIT_AS, memory_bytes),
        (resource.RLIMIT_CPU, cpu_seconds),
        (resource.RLIMIT_FSIZE, 0),
        (resource.RLIMIT_CORE, 0),
    ):
        try:
            _soft, hard = resource.getrlimit(kind)
            wanted = value if hard == resource.RLIM_INFINITY else min(value, hard)
            resource.setrlimit(kind, (wanted, hard))
        except (ValueError, OSError):
            pass  # a platform without the limit: the parent's time limit still holds


def png_bytes(width: int, height: int, channels: int, rows: list[bytes]) -> bytes:
    """A PNG of 8-bit grey (1 channel) or RGB (3) `rows`, each `width * channels` bytes."""
    colour = {1: 0, 3: 2}[channels]

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", width, height, 8, colour, 0, 0, 0)
    raw = b"".join(b"\x00" + row for row in rows)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(raw, 6))
        + chunk(b"IEND", b"")
    )


def _bitmap_png(bitmap: Any) -> bytes:
    """The PNG of a rendered pypdfium2 bitmap: grey, or RGB (from RGB, BGR, or either
    with a fourth byte per pixel, which is dropped)."""
    width, height, stride = bitmap.width, bitmap.height, bitmap.stride
    channels = bitmap.n_channels
    order = (2, 1, 0) if str(bitmap.mode).startswith("BGR") else (0, 1, 2)
    buffer = bytes(bitmap.buffer)
    rows = []
    for y in range(height):
        row = buffer[y * stride : y * stride + width * channels]
        if channels == 1:
            rows.append(row)
            continue
        rgb = bytearray(width * 3)
        for target, source in enumerate(order):
            rgb[target::3] = row[source::channels]
        rows.append(bytes(rgb))
    return png_bytes(width, height, 1 if channels == 1 else 3, rows)


def _render(page: Any, request: dict[str, Any]) -> tuple[str | None, str | None, int, int]:
    """(base64 PNG, why not) of the page, at most `max_edge_px` on its long side and
    `image_bytes` big (drawn smaller until it fits)."""
    width_pt, height_pt = page.get_size()
    if not (math.isfinite(width_pt) and math.isfinite(height_pt)) or min(width_pt, height_pt) <= 0:
        return None, "the page has no usable size", 0, 0
    long_side = max(width_pt, height_pt)
    scale = min(request["dpi"] / 72.0, request["max_edge_px"] / long_side)
    for _attempt in range(3):
        # Both sides at least one pixel: a hairline page still renders.
        if long_side * scale < 1:
            scale = 1 / long_side
        bitmap = page.render(scale=scale, rev_byteorder=True)
        try:
            data = _bitmap_png(bitmap)
            size = (bitmap.width, bitmap.height)
        finally:
            bitmap.close()
        if len(data) <= request["image_bytes"]:
            return base64.b64encode(data).decode("ascii"), None, *size
        scale *= 0.6
    return None, "its picture is too large even at a low resolution", 0, 0


def _page_record(pdf: Any, index: int, request: dict[str, Any], images_left: int) -> dict[str, Any]:
    record: dict[str, Any] = {"kind": "page", "number": index + 1}
    try:
        page = pdf[index]
    except Exception as exc:
        record["error"] = f"the page cannot be loaded ({_short(exc)})"
        return record
    try:
        textpage = page.get_textpage()
        try:
            count = textpage.count_chars()
            wanted = min(count, request["text_chars_per_page"])
            text = textpage.get_text_range(0, wanted) if wanted > 0 else ""
        finally:
            textpage.close()
        record["text"] = text.replace("\r\n", "\n").replace("\r", "\n")
        record["text_cut"] = count > wanted
        if len("".join(text.split())) < request["little_text_chars"]:
            if images_left <= 0:
                record["image_skipped"] = "this call's budget for pictures is used up"
            else:
                try:
                    image, why, width, height = _render(page, request)
                except Exception as exc:  # the text stays; only the picture is lost
                    image, why, width, height = None, f"it cannot be drawn ({_short(exc)})", 0, 0
                if image is not None:
                    record.update(image=image, width=width, height=height)
                else:
                    record["image_skipped"] = why
    except Exception as exc:
        record["error"] = f"the page cannot be read ({_short(exc)})"
    finally:
        page.close()
    return record


def _short(exc: BaseException) -> str:
    return (str(exc) or type(exc).__name__).splitlines()[0][:200]


def main() -> int:
    request = json.loads(sys.stdin.readline())
    _limit_self(request["memory_bytes"], request["cpu_seconds"])
    try:
        import pypdfium2 as pdfium
    except Exception as exc:  # not installed, or its library does not load here
        _emit({"kind": "error", "code": "missing", "detail": _short(exc)})
        return 0
    handle = os.fdopen(request["fd"], "rb")
    try:
        pdf = pdfium.PdfDocument(handle, autoclose=True)
    except pdfium.PdfiumError as exc:
        code = _LOAD_ERRORS.get(getattr(exc, "err_code", 1) or 1, "unknown")
        _emit({"kind": "error", "code": code, "detail": _short(exc)})
        return 0
    count = len(pdf)
    _emit({"kind": "doc", "page_count": count})
    first, last = request["first"], min(request["last"], count)
    images_left = request["images_total_bytes"]
    for index in range(first - 1, last):
        record = _page_record(pdf, index, request, images_left)
        images_left -= len(record.get("image") or "")
        _emit(record)
    _emit({"kind": "done"})
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except MemoryError:
        _emit({"kind": "error", "code": "memory", "detail": ""})
        sys.exit(3)
