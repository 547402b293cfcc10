"""A snapshot's screen as lines of text, for a failure that must explain itself.

A snapshot that differs only on a loaded CI machine leaves its HTML report on that
machine; what reaches us is the test's output. `screen_diff()` turns the expected and
the actual SVG into the rows a person would read and says which ones differ (or that
only the colours do), so the log alone shows what moved.
"""

from __future__ import annotations

import difflib
import html
import re

_TEXT = re.compile(
    r'<text class="([^"]*)" x="([\d.]+)" y="[\d.]+" textLength="([\d.]+)"'
    r' clip-path="url\(#terminal(?:-\d+)?-line-(\d+)\)">(.*?)</text>'
)
_UNIQUE_ID = re.compile(r"\bterminal-\d+-")


def screen_rows(svg: str) -> list[str]:
    """The terminal's rows, each as the characters on it (trailing blanks dropped)."""
    cells: dict[int, list[tuple[float, str]]] = {}
    width = 0.0
    for _style, x, length, line, raw in _TEXT.findall(svg):
        text = html.unescape(raw).replace("\xa0", " ")
        if text and not width:
            width = float(length) / len(text)
        cells.setdefault(int(line), []).append((float(x), text))
    rows = [""] * (max(cells, default=-1) + 1)
    for line, pieces in cells.items():
        row = ""
        for x, text in sorted(pieces):
            column = round(x / width) if width else len(row)
            row = row.ljust(column) + text
        rows[line] = row.rstrip()
    return rows


def _styled_rows(svg: str) -> list[list[tuple[str, str, str]]]:
    """Each row as its (style class, column, text) runs, for a colour-only difference."""
    svg = _UNIQUE_ID.sub("terminal-", svg)
    rows: dict[int, list[tuple[str, str, str]]] = {}
    for style, x, _length, line, raw in _TEXT.findall(svg):
        rows.setdefault(int(line), []).append((style, x, raw))
    return [rows.get(line, []) for line in range(max(rows, default=-1) + 1)]


def screen_diff(expected_svg: str, actual_svg: str) -> str:
    """What differs between two snapshots, told in rows of text."""
    expected, actual = screen_rows(expected_svg), screen_rows(actual_svg)
    if expected != actual:
        numbered = [f"{n:2} {row}" for n, row in enumerate(expected)]
        got = [f"{n:2} {row}" for n, row in enumerate(actual)]
        diff = difflib.unified_diff(numbered, got, "expected", "actual", lineterm="", n=2)
        return "The screen's text differs:\n" + "\n".join(diff)
    styled_expected, styled_actual = _styled_rows(expected_svg), _styled_rows(actual_svg)
    changed = [
        n
        for n, (left, right) in enumerate(zip(styled_expected, styled_actual, strict=False))
        if left != right
    ]
    if changed:
        shown = "\n".join(f"{n:2} {actual[n]}" for n in changed if n < len(actual))
        return f"The text is the same; the styles differ on rows {changed}:\n{shown}"
    return "The rows are the same; the pictures differ elsewhere (colours defined, size)."
