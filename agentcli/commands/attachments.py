"""`@path` in a prompt attaches that project file to the message.

The file's text goes to the model as an extra text block before the prompt
(the prompt itself is sent as typed); a PNG, JPEG, GIF or WebP file (by its
bytes) goes as an image block, scaled down if it is over the API's limits
(core/images.py). Missing, binary or oversized files are reported, never
silently dropped or sent half-read without saying so.
"""

from __future__ import annotations

import re
from pathlib import Path

from agentcli.core.images import MAX_SOURCE_BYTES, ImageProblem, fit_image, sniff_image
from agentcli.core.messages import Block

MAX_BYTES = 256 * 1024
AT_PATH = re.compile(r"(?:^|(?<=\s))@(\S+)")


def find_mentions(text: str) -> list[str]:
    return [m.group(1) for m in AT_PATH.finditer(text)]


def attach(text: str, root: Path) -> tuple[list[Block], list[str]]:
    """(text blocks for the files, notes for the person). Runs file I/O: call in a thread."""
    blocks: list[Block] = []
    notes: list[str] = []
    seen: set[Path] = set()
    for mention in find_mentions(text):
        path = (root / mention).resolve() if not Path(mention).is_absolute() else Path(mention)
        if path in seen or not path.is_file():
            continue
        seen.add(path)
        try:
            with path.open("rb") as handle:
                data = handle.read(MAX_BYTES + 1)
                if sniff_image(data[:16]) is not None:
                    data += handle.read(MAX_SOURCE_BYTES + 1 - len(data))
        except OSError as exc:
            notes.append(f"Could not attach {mention}: {exc.strerror or exc}")
            continue
        if sniff_image(data[:16]) is not None:
            try:
                image = fit_image(data)
            except ImageProblem as problem:
                notes.append(f"Not attached: {mention}: {problem}")
                continue
            blocks.append(image.block())
            notes.append(f"Attached {mention} (image, {image.describe()})")
            continue
        if b"\0" in data[:8192]:
            notes.append(f"Not attached: {mention} is a binary file")
            continue
        truncated = len(data) > MAX_BYTES
        body = data[:MAX_BYTES].decode("utf-8", "replace")
        lines = body.count("\n") + (0 if body.endswith("\n") or not body else 1)
        suffix = f" (first {MAX_BYTES // 1024} KB)" if truncated else ""
        blocks.append(
            {
                "type": "text",
                "text": f'Contents of {mention}{suffix}:\n<file path="{mention}">\n{body}\n</file>',
            }
        )
        notes.append(f"Attached {mention} ({lines} line{'s' if lines != 1 else ''}){suffix}")
    return blocks, notes
