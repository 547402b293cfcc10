"""The JSON-lines files a session keeps: transcripts, checkpoint logs.

Each is appended to one object a line, and a crash can leave the last line
cut. So a writer that reopens a file first ends a cut line (`ends_with_newline`),
keeping it alone, and a reader takes each line that holds a JSON object and
skips the rest (`json_record`).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any


def ends_with_newline(path: Path) -> bool:
    """True for an empty file too: there is no line to end."""
    with path.open("rb") as existing:
        size = existing.seek(0, os.SEEK_END)
        if size == 0:
            return True
        existing.seek(size - 1)
        return existing.read(1) == b"\n"


def json_record(line: str) -> dict[str, Any] | None:
    """The JSON object on `line`; None for a cut or foreign line (not an object)."""
    try:
        value = json.loads(line)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None
