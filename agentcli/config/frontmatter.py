"""Markdown files with YAML front matter: custom commands, skills (and agents).

Claude Code's formats put a file's settings between two `---` lines at its
top and the prompt below them; a file without that block is all body. The
front matter is read with a real YAML parser, and anything that is not a
mapping of names to values (broken YAML, a list, bare words, a key given
twice) is refused with the file and the line, so a broken file can be
reported and skipped, never half-read.

Two keys hold free text that people write unquoted, as Claude Code lets them:
a one-line `description` or `argument-hint` is taken as written, so
`description: Reviews code: finds bugs` (YAML would stop at the second `: `)
and `argument-hint: [pr-number] [priority]` (brackets are its convention;
not YAML) are text. Only text: a description that starts with YAML's own
syntax (`[`, `{`, `*`, `&`, `!`, a quote, `|`, `>`, `#`...) is YAML and is
read as YAML, so `description: [unclosed` is reported as the broken list it
is, not taken for words; and a value that goes on over indented lines is
YAML's plain multi-line text, read by YAML.
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
# A value starting with one of these is YAML syntax (a flow collection, an anchor,
# alias or tag, a quoted or block scalar, a comment, a reserved character).
_YAML_START = frozenset("[]{}&*!|>'\"%@`#")
# `argument-hint`'s own convention is brackets: only a quoted or block value is YAML.
_HINT_YAML_START = frozenset("'\"|>")


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

    front = lines[1:end]
    if _flow_depth(front) > MAX_FLOW_DEPTH:  # before the parser: its own limit varies
        raise FrontMatterError(f"{path}: broken front matter: nested too deeply")
    try:
        meta = _load_yaml("".join(_as_written(front)))
    except yaml.YAMLError as exc:
        problem = _yaml_problem(exc, len(front))
        raise FrontMatterError(f"{path}: broken front matter: {problem}") from None
    except RecursionError:  # the parser recurses: `[[[[...` thousands deep
        raise FrontMatterError(f"{path}: broken front matter: nested too deeply") from None
    if meta is None:
        meta = {}
    if not isinstance(meta, dict):
        raise FrontMatterError(f"{path}: the front matter should be `name: value` lines (line 2)")
    return {str(key): value for key, value in meta.items()}, "".join(lines[end + 1 :])


def _as_written(lines: list[str]) -> list[str]:
    """The front matter with each one-line free-text value quoted (module docstring)."""
    quoted = []
    for index, line in enumerate(lines):
        following = lines[index + 1] if index + 1 < len(lines) else ""
        continued = following[:1] in (" ", "\t") and bool(following.strip())
        quoted.append(line if continued else _quote_text(line))
    return quoted


def _quote_text(line: str) -> str:
    """`argument-hint: [pr-number] [priority]` as Claude Code reads it: the text as
    written (unquoted, YAML would take it for a list, or fail on it)."""
    match = _TEXT_LINE.match(line)
    if match is None:
        return line
    key, value = match.group(1), match.group(2)
    if value[0] in (_HINT_YAML_START if key == "argument-hint" else _YAML_START):
        return line
    return f"{key}: {json.dumps(value.rstrip())}\n"


# How deep `[` / `{` may nest in front matter. YAML's parser recurses per level, so
# thousands of `[` end in a RecursionError or a parse error depending on how deep the
# caller's stack already is; no real front matter comes near this.
MAX_FLOW_DEPTH = 100


def _flow_depth(lines: list[str]) -> int:
    """The deepest nesting of YAML flow collections in `lines`, counted roughly (brackets
    in quoted text count too: that only makes the limit stricter for such text)."""
    depth = deepest = 0
    for line in lines:
        for char in line:
            if char in "[{":
                depth += 1
                deepest = max(deepest, depth)
            elif char in "]}" and depth:
                depth -= 1
    return deepest


def _load_yaml(text: str) -> Any:
    """YAML's safe loader, which also refuses a key given twice (YAML would keep the
    last silently: which one did the person mean?)."""
    import yaml

    loader = yaml.SafeLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        _refuse_repeated_keys(node)
        return loader.construct_document(node)
    finally:
        loader.dispose()


def _refuse_repeated_keys(root: Any) -> None:
    import yaml

    pending, visited = [root], set()
    while pending:
        node = pending.pop()
        if id(node) in visited:  # an alias: its node was walked (billion laughs stay cheap)
            continue
        visited.add(id(node))
        if isinstance(node, yaml.MappingNode):
            seen: dict[str, int] = {}
            for key, value in node.value:
                line = key.start_mark.line + 2
                if isinstance(key, yaml.ScalarNode) and key.value in seen:
                    where = f"lines {seen[key.value]} and {line}"
                    raise yaml.constructor.ConstructorError(
                        problem=f"the key `{key.value}` appears twice ({where})"
                    )
                if isinstance(key, yaml.ScalarNode):
                    seen[key.value] = line
                pending += [key, value]
        elif isinstance(node, yaml.SequenceNode):
            pending += node.value


def _yaml_problem(exc: yaml.YAMLError, lines: int) -> str:
    """The parser's complaint, with the file's line number (the front matter starts on
    line 2). A problem found at the end (a `[` never closed) is placed where what was
    left open began."""
    mark = getattr(exc, "problem_mark", None)
    if mark is not None and mark.line >= lines:
        mark = getattr(exc, "context_mark", None) or mark
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
