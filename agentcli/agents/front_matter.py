"""Markdown files with YAML front matter, the format of Claude Code's agent files.

    ---
    name: reviewer
    tools: Read, Grep
    ---
    The body.

Only what lies between the first two `---` lines is YAML; the rest is the
body, untouched. A file with no front matter is all body.
"""

from __future__ import annotations

from typing import Any

import yaml  # type: ignore[import-untyped]  # no stubs in the package mirror


class FrontMatterError(ValueError):
    """The front matter is not a YAML mapping (the message says where)."""


def split_front_matter(text: str) -> tuple[dict[str, Any], str]:
    """The front matter as a mapping, and the body after it."""
    lines = text.lstrip("\ufeff").splitlines(keepends=True)
    if not lines or lines[0].strip() != "---":
        return {}, text
    for end in range(1, len(lines)):
        if lines[end].strip() == "---":
            return _mapping("".join(lines[1:end])), "".join(lines[end + 1 :])
    raise FrontMatterError("the front matter has no closing '---' line")


def _mapping(source: str) -> dict[str, Any]:
    try:
        data = yaml.safe_load(source)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 2})" if mark is not None else ""
        raise FrontMatterError(f"the front matter is not valid YAML{where}") from exc
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise FrontMatterError("the front matter must be a mapping of keys to values")
    return {str(key): value for key, value in data.items()}
