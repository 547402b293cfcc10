"""Where a key sits in a JSON text, so a settings error can say "line 3, column 5".

`json.loads` keeps no positions, and validation errors (pydantic's) come as
key paths like ("permissions", "deny", 0). This walks the text once, with a
tokenizer that is only correct for valid JSON (the text has been parsed
before we get here), and maps every key path to the offset where its key
(or, in a list, its item) starts. It only runs for a file that failed
validation, so its cost never touches a normal start.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

KeyPath = tuple[str | int, ...]

_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[{}\[\]:,]|[^\s{}\[\]:,"]+')


@dataclass
class _Container:
    path: KeyPath
    is_object: bool
    key: str | int = 0  # the current key (object) or index (list)
    expecting_key: bool = True

    def child(self) -> KeyPath:
        return (*self.path, self.key)


def key_offsets(text: str) -> dict[KeyPath, int]:
    """Every key path of the JSON object in `text`, with the offset of its key or item."""
    offsets: dict[KeyPath, int] = {}
    stack: list[_Container] = []
    for match in _TOKEN.finditer(text):
        token, top = match.group(), stack[-1] if stack else None
        if top is not None and top.is_object and top.expecting_key and token.startswith('"'):
            top.key, top.expecting_key = json.loads(token), False
            offsets[top.child()] = match.start()
        elif token == ",":
            if top is not None and top.is_object:
                top.expecting_key = True
            elif top is not None and isinstance(top.key, int):
                top.key += 1
        elif token in ("}", "]"):
            stack.pop()
        elif token != ":":  # a value starts
            if top is not None and not top.is_object:
                offsets[top.child()] = match.start()
            if token in ("{", "["):
                stack.append(_Container(top.child() if top else (), token == "{"))
    return offsets


class KeyPositions:
    """Line and column of key paths in one JSON text (walked once, on first use)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._offsets: dict[KeyPath, int] | None = None

    def of(self, path: KeyPath) -> tuple[int, int] | None:
        """(line, column), both from 1, of the deepest part of `path` found in the text."""
        if self._offsets is None:
            self._offsets = key_offsets(self.text)
        for end in range(len(path), 0, -1):
            offset = self._offsets.get(tuple(path[:end]))
            if offset is not None:
                return line_and_column(self.text, offset)
        return None


def line_and_column(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1
