"""Properties of Edit on random files: the result is `str.replace` and nothing else moves.

Each example runs the real tools on a real file (Read, then Edit) in its own
temp folder; hypothesis drives plain functions that call `asyncio.run`, since
function-scoped fixtures and async tests do not mix with `@given`.
"""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from agentcli.core.abort import AbortSignal
from agentcli.tools.base import ToolContext, ToolResult, Workspace
from agentcli.tools.edit import EditTool
from agentcli.tools.read import ReadTool

SETTINGS = settings(
    max_examples=100,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)

# Line text: any unicode but line breaks, NUL (which marks a file as binary) and
# U+FEFF (a leading one is indistinguishable from a byte order mark). Form feeds,
# U+2028 and the like stay in: they must not count as line breaks.
line_text = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\r\n\x00\ufeff"),
    max_size=30,
)
# Text with LF line breaks, at least one of them, so the file has a line-ending style.
lf_text = st.lists(line_text, min_size=2, max_size=12).map("\n".join)
# Replacement text, line breaks allowed (always written as "\n" by the model).
new_text = st.lists(line_text, min_size=1, max_size=3).map("\n".join)


def overlapping_count(haystack: str, needle: str) -> int:
    count, at = 0, haystack.find(needle)
    while at != -1:
        count += 1
        at = haystack.find(needle, at + 1)
    return count


def unique_substring(data: st.DataObject, content: str) -> str:
    """A non-empty substring of `content` that occurs there exactly once."""
    assume(content)
    start = data.draw(st.integers(0, len(content) - 1), label="start")
    end = data.draw(st.integers(start + 1, len(content)), label="end")
    # Grow the span until it is unique (a long enough span always is, or never).
    while overlapping_count(content, content[start:end]) > 1 and end < len(content):
        end += 1
    while overlapping_count(content, content[start:end]) > 1 and start > 0:
        start -= 1
    old = content[start:end]
    assume(overlapping_count(content, old) == 1)
    return old


async def read_then_edit(root: Path, data: bytes, **edit: object) -> tuple[bytes, ToolResult]:
    workspace = Workspace(root=root)
    ctx = ToolContext(workspace=workspace, abort=AbortSignal())
    path = root / "f.txt"
    path.write_bytes(data)
    await ReadTool().run(ReadTool.input_model.model_validate({"file_path": str(path)}), ctx)
    inp = EditTool.input_model.model_validate({"file_path": str(path), **edit})
    result = await EditTool().run(inp, ctx)
    return path.read_bytes(), result


def edit_bytes(data: bytes, **edit: object) -> tuple[bytes, ToolResult]:
    with tempfile.TemporaryDirectory() as folder:
        return asyncio.run(read_then_edit(Path(folder), data, **edit))


@SETTINGS
@given(content=lf_text, new=new_text, crlf=st.booleans(), bom=st.booleans(), data=st.data())
def test_single_edit_is_str_replace_in_the_files_convention(
    content: str, new: str, crlf: bool, bom: bool, data: st.DataObject
) -> None:
    old = unique_substring(data, content)
    assume(old != new)
    newline = "\r\n" if crlf else "\n"
    prefix = b"\xef\xbb\xbf" if bom else b""
    before = prefix + content.replace("\n", newline).encode()

    after, result = edit_bytes(before, old_string=old, new_string=new)

    expected = content.replace(old, new, 1).replace("\n", newline)
    assert after == prefix + expected.encode()
    assert not result.is_error
    if crlf:  # a CRLF file stays CRLF: no bare LF appears
        assert after.count(b"\n") == after.count(b"\r\n")


@SETTINGS
@given(content=lf_text, new=new_text, crlf=st.booleans(), data=st.data())
def test_replace_all_is_str_replace(
    content: str, new: str, crlf: bool, data: st.DataObject
) -> None:
    assume(content)
    start = data.draw(st.integers(0, len(content) - 1))
    end = data.draw(st.integers(start + 1, min(len(content), start + 3)))
    old = content[start:end]
    assume(old != new)
    newline = "\r\n" if crlf else "\n"

    after, result = edit_bytes(
        content.replace("\n", newline).encode(), old_string=old, new_string=new, replace_all=True
    )

    assert after == content.replace(old, new).replace("\n", newline).encode()
    assert f"replaced {content.count(old)} occurrence" in result.content


@SETTINGS
@given(
    lines=st.lists(st.tuples(line_text, st.sampled_from(["\n", "\r\n"])), min_size=2, max_size=12),
    new=new_text,
    data=st.data(),
)
def test_mixed_endings_outside_the_edit_are_byte_identical(
    lines: list[tuple[str, str]], new: str, data: st.DataObject
) -> None:
    original = "".join(text + end for text, end in lines)
    folded = original.replace("\r\n", "\n")
    old = unique_substring(data, folded)
    assume(old != new)

    after, _ = edit_bytes(original.encode(), old_string=old, new_string=new)
    result = after.decode()

    # The content is the replacement, whatever line endings were used.
    assert result.replace("\r\n", "\n") == folded.replace(old, new, 1)
    # Lines wholly before and after the edited ones keep their bytes, endings included.
    at = folded.index(old)
    first_line = folded.count("\n", 0, at)
    last_line = folded.count("\n", 0, at + len(old))
    # Cut at "\n" only: str.splitlines would also cut at form feeds and U+2028.
    before_lines = [p + "\n" for p in original.split("\n")[:-1]]
    after_lines = [p + "\n" for p in result.split("\n")[:-1]]
    assert after_lines[:first_line] == before_lines[:first_line]
    tail = len(before_lines) - last_line - 1
    if tail > 0:
        assert after_lines[-tail:] == before_lines[-tail:]
