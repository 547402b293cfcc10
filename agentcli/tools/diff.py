"""Structured diffs of two versions of a text, for the UI (never sent to the model).

The shape is unified-diff hunks as data (`DiffDisplay`, tools/display.py), so
a renderer can colour lines and show numbers without parsing text:

    DiffDisplay(path="src/app.py", added=1, removed=1, hunks=(
        DiffHunk(old_start=3, old_lines=4, new_start=3, new_lines=4,
                 lines=(" ctx", "-old", "+new", " ctx")),))

Start numbers follow unified diff: 1-based, and for an empty side the number
of the line before the hunk. Lines are compared with their endings, so a
changed line ending or a newline added at the end of the file shows up as a
change; the endings are stripped from the lines given to the UI.
"""

from __future__ import annotations

import difflib

from agentcli.tools.display import DiffDisplay, DiffHunk

CONTEXT_LINES = 3


def split_keepends(text: str) -> list[str]:
    """Lines cut after each "\\n" only (not at form feeds or U+2028), endings kept."""
    if not text:
        return []
    lines = text.split("\n")
    out = [line + "\n" for line in lines[:-1]]
    if lines[-1]:
        out.append(lines[-1])
    return out


def diff_hunks(old: str, new: str, context: int = CONTEXT_LINES) -> list[DiffHunk]:
    """The hunks that turn `old` into `new`, with `context` unchanged lines around changes.

    Lines shared at the start and end are set aside before difflib runs, so a
    small edit in a large file costs a scan, not a quadratic match.
    """
    a, b = split_keepends(old), split_keepends(new)
    head = _common_prefix(a, b)
    tail = _common_suffix(a, b, head)
    lo = max(0, head - context)
    a_mid = a[lo : len(a) - max(0, tail - context)]
    b_mid = b[lo : len(b) - max(0, tail - context)]
    matcher = difflib.SequenceMatcher(None, a_mid, b_mid, autojunk=False)
    hunks = []
    for group in matcher.get_grouped_opcodes(context):
        if len(group) == 1 and group[0][0] == "equal":
            continue  # identical texts give one all-equal group
        lines: list[str] = []
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                lines += [" " + _strip(x) for x in a_mid[i1:i2]]
                continue
            if tag in ("replace", "delete"):
                lines += ["-" + _strip(x) for x in a_mid[i1:i2]]
            if tag in ("replace", "insert"):
                lines += ["+" + _strip(x) for x in b_mid[j1:j2]]
        first, last = group[0], group[-1]
        old_lines = last[2] - first[1]
        new_lines = last[4] - first[3]
        hunks.append(
            DiffHunk(
                old_start=_start(lo + first[1], old_lines),
                old_lines=old_lines,
                new_start=_start(lo + first[3], new_lines),
                new_lines=new_lines,
                lines=tuple(lines),
            )
        )
    return hunks


def build_diff(path: str, old: str, new: str, context: int = CONTEXT_LINES) -> DiffDisplay:
    """The display of a file changed from `old` to `new`."""
    hunks = diff_hunks(old, new, context)
    added = sum(1 for h in hunks for line in h.lines if line.startswith("+"))
    removed = sum(1 for h in hunks for line in h.lines if line.startswith("-"))
    return DiffDisplay(path=path, hunks=tuple(hunks), added=added, removed=removed)


def _start(index: int, length: int) -> int:
    return index + 1 if length else index


def _strip(line: str) -> str:
    if line.endswith("\r\n"):
        return line[:-2]
    return line[:-1] if line.endswith("\n") else line


def _common_prefix(a: list[str], b: list[str]) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


def _common_suffix(a: list[str], b: list[str], head: int) -> int:
    """Shared lines at the end, not overlapping the `head` shared at the start."""
    n = 0
    limit = min(len(a), len(b)) - head
    while n < limit and a[-1 - n] == b[-1 - n]:
        n += 1
    return n
