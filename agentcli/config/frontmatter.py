"""Markdown files with YAML front matter: custom commands, skills (and agents).

Claude Code's formats put a file's settings between two `---` lines at its
top and the prompt below them; a file without that block is all body. The
front matter is read with a real YAML parser, and anything that is not a
mapping of names to values is refused with the file and the line, so a
broken file can be reported and skipped, never half-read. A one-line
`description` or `argument-hint` is taken as written, as Claude Code does
(`argument-hint: [pr-number] [priority]` is not YAML).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import yaml

MAX_FILE_BYTES = 256 * 1024
_FENCE = "---"
# Keys whose value is one line of free text, read as written.
_TEXT_LINE = re.compile(r"^(description|argument-hint):[ \t]*(\S.*)$")


class FrontMatterError(ValueError):
    """The file cannot be used; the message names it and says why."""


@dataclass(frozen=True, slots=True)
class MarkdownFile:
    path: Path
    meta: dict[str, Any]
    body: str

    def text(self, key: str) -> str | None:
        """A front matter value as one line of text (None when absent or empty)."""
        value = self.meta.get(key)
        if value is None:
            return None
        if isinstance(value, list | dict):
            raise FrontMatterError(f"{self.path}: `{key}` should be text, not a list or mapping")
        return str(value).strip() or None

    def words(self, key: str) -> list[str]:
        """A list value, written as a YAML list or as one comma-separated string."""
        value = self.meta.get(key)
        if value is None:
            return []
        items = value if isinstance(value, list) else _split_commas(str(value))
        return [str(item).strip() for item in items if str(item).strip()]


def read_markdown(path: Path) -> MarkdownFile:
    """Read and split `path`. Raises FrontMatterError (with the path) on any problem."""
    try:
        data = path.read_bytes()[: MAX_FILE_BYTES + 1]
    except OSError as exc:
        raise FrontMatterError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    if len(data) > MAX_FILE_BYTES:
        raise FrontMatterError(f"{path}: larger than {MAX_FILE_BYTES // 1024} KB")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise FrontMatterError(f"{path}: not UTF-8 text") from None
    meta, body = split_front_matter(text, path)
    return MarkdownFile(path, meta, body)


def split_front_matter(text: str, path: Path) -> tuple[dict[str, Any], str]:
    """(the front matter as a mapping, the body after it)."""
    lines = text.lstrip("\ufeff").splitlines(keepends=True)
    if not lines or lines[0].rstrip() != _FENCE:
        return {}, text
    end = next((i for i, line in enumerate(lines) if i and line.rstrip() == _FENCE), None)
    if end is None:
        raise FrontMatterError(f"{path}: the front matter has no closing `---` line")
    import yaml  # here: most sessions have no such file, and every start would pay for it

    try:
        meta = yaml.safe_load("".join(_quote_text(line) for line in lines[1:end]))
    except yaml.YAMLError as exc:
        raise FrontMatterError(f"{path}: broken front matter: {_yaml_problem(exc)}") from None
    if meta is None:
        meta = {}
    if not isinstance(meta, dict):
        raise FrontMatterError(f"{path}: the front matter should be `name: value` lines")
    return {str(key): value for key, value in meta.items()}, "".join(lines[end + 1 :])


def _quote_text(line: str) -> str:
    """`argument-hint: [pr-number] [priority]` as Claude Code reads it: the text as
    written (unquoted, YAML would take it for a list, or fail on it)."""
    match = _TEXT_LINE.match(line)
    if match is None or match.group(2)[:1] in ("'", '"', "|", ">"):
        return line
    return f"{match.group(1)}: {json.dumps(match.group(2).rstrip())}\n"


def _yaml_problem(exc: yaml.YAMLError) -> str:
    """The parser's complaint, with the file's line number (the front matter starts on line 2)."""
    mark = getattr(exc, "problem_mark", None)
    problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
    if mark is None:
        return str(problem)
    return f"{problem} (line {mark.line + 2})"


def _split_commas(text: str) -> list[str]:
    """`Bash(git add:*), Read` -> two items; commas inside parentheses stay."""
    items, depth, current = [], 0, ""
    for char in text:
        if char == "," and depth == 0:
            items.append(current)
            current = ""
            continue
        depth += {"(": 1, ")": -1}.get(char, 0)
        current += char
    return [*items, current]
