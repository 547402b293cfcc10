"""Edit: the refusals, byte-exact results, formats kept, atomicity, snippet and diff."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from agentcli.tools.base import FileSnapshot, ToolError, Workspace
from agentcli.tools.diff import build_diff, diff_hunks
from agentcli.tools.display import CreatedDisplay, DiffDisplay, DiffHunk
from agentcli.tools.edit import EditInput, EditTool, replace_exact
from agentcli.tools.fileio import FileChangedError, atomic_write, snapshot_of
from agentcli.tools.read import ReadTool


@pytest.fixture
def make_file(workspace: Workspace, run_tool):
    """Write bytes to a file in the project and Read it, as the model would."""

    async def make(name: str, data: bytes, *, read: bool = True) -> Path:
        path = workspace.root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        if read:
            await run_tool(ReadTool(), file_path=str(path))
        return path

    return make


def leftovers(folder: Path) -> list[str]:
    return [p.name for p in folder.iterdir() if p.name.endswith(".tmp")]


# --- identity ----------------------------------------------------------------------


def test_tool_identity_and_flags(workspace: Workspace) -> None:
    tool = EditTool()
    assert tool.name == "Edit"
    assert not tool.read_only and not tool.concurrency_safe
    inp = EditInput.model_validate(
        {"file_path": "src/app.py", "old_string": "a", "new_string": "b"}
    )
    assert inp.replace_all is False
    assert tool.summary(inp, workspace) == "src/app.py"
    assert tool.target_path(inp, workspace) == workspace.root / "src" / "app.py"
    props = tool.schema()["input_schema"]["properties"]
    assert set(props) == {"file_path", "old_string", "new_string", "replace_all"}
    assert all(p.get("description") for p in props.values())


# --- refusals ----------------------------------------------------------------------


async def test_refuses_a_file_not_read(run_tool, make_file) -> None:
    path = await make_file("a.py", b"x = 1\n", read=False)
    with pytest.raises(ToolError) as err:
        await run_tool(EditTool(), file_path=str(path), old_string="1", new_string="2")
    assert "has not been read" in str(err.value) and "Read" in str(err.value)
    assert path.read_bytes() == b"x = 1\n"


async def test_refuses_a_file_changed_since_read(run_tool, make_file) -> None:
    path = await make_file("a.py", b"x = 1\n")
    path.write_bytes(b"x = 100\n")
    with pytest.raises(ToolError) as err:
        await run_tool(EditTool(), file_path=str(path), old_string="x", new_string="y")
    assert "modified since it was last read" in str(err.value)
    assert "Read it again" in str(err.value)
    assert path.read_bytes() == b"x = 100\n"


async def test_refuses_a_file_touched_since_read(run_tool, make_file) -> None:
    path = await make_file("a.py", b"x = 1\n")
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 5_000_000_000))
    with pytest.raises(ToolError, match="modified since"):
        await run_tool(EditTool(), file_path=str(path), old_string="x", new_string="y")


async def test_not_found_hints_at_whitespace_and_prefix(run_tool, make_file) -> None:
    path = await make_file("a.py", b"def f():\n    return 1\n")
    with pytest.raises(ToolError) as err:
        await run_tool(EditTool(), file_path=str(path), old_string="\treturn 1", new_string="x")
    message = str(err.value)
    assert "not found" in message
    assert "indentation" in message and "whitespace" in message
    assert "line-number prefix" in message


async def test_line_number_prefix_is_not_stripped(run_tool, make_file) -> None:
    path = await make_file("a.py", b"x = 1\n")
    with pytest.raises(ToolError, match="not found"):
        await run_tool(EditTool(), file_path=str(path), old_string="     1\tx = 1", new_string="y")


async def test_several_matches_need_context_or_replace_all(run_tool, make_file) -> None:
    path = await make_file("a.py", b"a = 1\nb = 1\nc = 1\n")
    with pytest.raises(ToolError) as err:
        await run_tool(EditTool(), file_path=str(path), old_string="= 1", new_string="= 2")
    message = str(err.value)
    assert "3 times" in message and "replace_all" in message
    assert path.read_bytes() == b"a = 1\nb = 1\nc = 1\n"


async def test_overlapping_matches_are_ambiguous(run_tool, make_file) -> None:
    path = await make_file("a.txt", b"aaa\n")
    with pytest.raises(ToolError, match="2 times"):
        await run_tool(EditTool(), file_path=str(path), old_string="aa", new_string="b")


async def test_identical_strings_are_refused(run_tool, make_file) -> None:
    path = await make_file("a.py", b"x = 1\n")
    with pytest.raises(ToolError, match="identical"):
        await run_tool(EditTool(), file_path=str(path), old_string="x", new_string="x")


async def test_change_only_in_line_endings_is_refused(run_tool, make_file) -> None:
    path = await make_file("a.py", b"a\nb\n")
    with pytest.raises(ToolError, match="unchanged"):
        await run_tool(EditTool(), file_path=str(path), old_string="a\nb", new_string="a\r\nb")


async def test_missing_file_points_to_write(run_tool, workspace: Workspace) -> None:
    (workspace.root / "main.py").write_text("x\n")
    with pytest.raises(ToolError) as err:
        await run_tool(
            EditTool(), file_path=str(workspace.root / "mian.py"), old_string="x", new_string="y"
        )
    message = str(err.value)
    assert "does not exist" in message and "Write" in message
    assert "main.py" in message


async def test_directory_is_refused(run_tool, workspace: Workspace) -> None:
    (workspace.root / "pkg").mkdir()
    with pytest.raises(ToolError, match="directory"):
        await run_tool(
            EditTool(), file_path=str(workspace.root / "pkg"), old_string="a", new_string="b"
        )


async def test_empty_old_string_on_a_non_empty_file(run_tool, make_file) -> None:
    path = await make_file("a.py", b"x\n")
    with pytest.raises(ToolError, match="already has content"):
        await run_tool(EditTool(), file_path=str(path), old_string="", new_string="y")


async def test_binary_file_is_refused(run_tool, make_file, workspace: Workspace) -> None:
    path = await make_file("a.bin", b"ab\x00cd", read=False)
    workspace.read_files[str(path)] = snapshot_of(path.stat())
    with pytest.raises(ToolError, match="binary"):
        await run_tool(EditTool(), file_path=str(path), old_string="ab", new_string="x")


# --- creating ----------------------------------------------------------------------


async def test_empty_old_string_creates_a_missing_file(run_tool, workspace: Workspace) -> None:
    target = workspace.root / "new" / "deep" / "mod.py"
    result = await run_tool(EditTool(), file_path=str(target), old_string="", new_string="a\nb\n")
    assert target.read_bytes() == b"a\nb\n"
    assert "Created" in result.content
    assert result.display == CreatedDisplay(path="new/deep/mod.py", lines=2)
    assert str(target) in workspace.read_files


async def test_empty_old_string_fills_an_empty_file(run_tool, make_file) -> None:
    path = await make_file("empty.py", b"")
    await run_tool(EditTool(), file_path=str(path), old_string="", new_string="x = 1\n")
    assert path.read_bytes() == b"x = 1\n"


# --- results -----------------------------------------------------------------------


async def test_replaces_exactly_one_occurrence(run_tool, make_file, workspace: Workspace) -> None:
    path = await make_file("a.py", b"def f():\n    return 1\n\n\ndef g():\n    return 2\n")
    result = await run_tool(
        EditTool(), file_path=str(path), old_string="    return 1", new_string="    return 10"
    )
    assert path.read_bytes() == b"def f():\n    return 10\n\n\ndef g():\n    return 2\n"
    assert not result.is_error
    assert result.content.startswith("Edited a.py.")
    assert "     2\t    return 10" in result.content
    st = path.stat()
    assert workspace.read_files[str(path)] == FileSnapshot(st.st_mtime_ns, st.st_size)


async def test_snippet_shows_a_few_lines_around_the_change(run_tool, make_file) -> None:
    text = "".join(f"line {i}\n" for i in range(1, 31))
    path = await make_file("a.txt", text.encode())
    result = await run_tool(EditTool(), file_path=str(path), old_string="line 15\n", new_string="")
    snippet = result.content.split("\n", 1)[1].split("\n")
    assert snippet[0] == "    11\tline 11"
    assert snippet[-1] == "    19\tline 20"
    assert "    15\tline 16" in snippet
    assert all("line 15" not in line for line in snippet)


async def test_replace_all_reports_the_count(run_tool, make_file) -> None:
    path = await make_file("a.py", b"foo(1)\nfoo(2)\nbar()\nfoo(3)\n")
    result = await run_tool(
        EditTool(), file_path=str(path), old_string="foo", new_string="baz", replace_all=True
    )
    assert path.read_bytes() == b"baz(1)\nbaz(2)\nbar()\nbaz(3)\n"
    assert "replaced 3 occurrences" in result.content
    assert result.display.added == 3 and result.display.removed == 3


async def test_replace_all_with_one_occurrence(run_tool, make_file) -> None:
    path = await make_file("a.py", b"foo\n")
    result = await run_tool(
        EditTool(), file_path=str(path), old_string="foo", new_string="bar", replace_all=True
    )
    assert "replaced 1 occurrence of" in result.content


async def test_replace_all_snippets_are_capped(run_tool, make_file) -> None:
    text = "".join(f"x{i} = old\n" + "pad\n" * 20 for i in range(8))
    path = await make_file("a.py", text.encode())
    result = await run_tool(
        EditTool(), file_path=str(path), old_string="old", new_string="new", replace_all=True
    )
    assert result.content.count("= new") == 5
    assert "first 5 of 8" in result.content
    assert "   ..." in result.content


async def test_second_edit_needs_no_new_read(run_tool, make_file) -> None:
    path = await make_file("a.py", b"a = 1\nb = 2\n")
    await run_tool(EditTool(), file_path=str(path), old_string="a = 1", new_string="a = 3")
    await run_tool(EditTool(), file_path=str(path), old_string="b = 2", new_string="b = 4")
    assert path.read_bytes() == b"a = 3\nb = 4\n"


async def test_partial_read_is_enough(run_tool, workspace: Workspace) -> None:
    path = workspace.root / "long.txt"
    path.write_text("".join(f"{i}\n" for i in range(5000)))
    await run_tool(ReadTool(), file_path=str(path), offset=10, limit=2)
    await run_tool(EditTool(), file_path=str(path), old_string="\n4999\n", new_string="\nend\n")
    assert path.read_text().endswith("4998\nend\n")


async def test_relative_path(run_tool, make_file) -> None:
    path = await make_file("src/app.py", b"x = 1\n")
    result = await run_tool(EditTool(), file_path="src/app.py", old_string="1", new_string="2")
    assert path.read_bytes() == b"x = 2\n"
    assert result.display.path == "src/app.py"


async def test_delete_to_empty_file(run_tool, make_file) -> None:
    path = await make_file("a.txt", b"only\n")
    result = await run_tool(EditTool(), file_path=str(path), old_string="only\n", new_string="")
    assert path.read_bytes() == b""
    assert "now empty" in result.content


# --- formats kept ------------------------------------------------------------------


async def test_crlf_file_stays_crlf(run_tool, make_file) -> None:
    path = await make_file("win.txt", b"one\r\ntwo\r\nthree\r\n")
    await run_tool(
        EditTool(), file_path=str(path), old_string="one\ntwo", new_string="uno\ndos\nextra"
    )
    assert path.read_bytes() == b"uno\r\ndos\r\nextra\r\nthree\r\n"


async def test_crlf_in_new_string_is_not_doubled(run_tool, make_file) -> None:
    path = await make_file("win.txt", b"a\r\nb\r\n")
    await run_tool(EditTool(), file_path=str(path), old_string="a\r\nb", new_string="x\r\ny")
    assert path.read_bytes() == b"x\r\ny\r\n"


async def test_lf_file_gets_lf_even_from_crlf_new_string(run_tool, make_file) -> None:
    path = await make_file("unix.txt", b"a\nb\n")
    await run_tool(EditTool(), file_path=str(path), old_string="a", new_string="x\r\ny")
    assert path.read_bytes() == b"x\ny\nb\n"


async def test_mixed_endings_outside_the_match_are_untouched(run_tool, make_file) -> None:
    path = await make_file("mixed.txt", b"a\r\nb\nc\r\nd\ne\r\n")
    await run_tool(EditTool(), file_path=str(path), old_string="c\nd", new_string="C\nD")
    # CRLF is the majority, so the new line break is CRLF; the others stay as they were.
    assert path.read_bytes() == b"a\r\nb\nC\r\nD\ne\r\n"


async def test_utf8_bom_is_kept(run_tool, make_file) -> None:
    path = await make_file("bom.txt", b"\xef\xbb\xbfname = 'x'\n")
    await run_tool(EditTool(), file_path=str(path), old_string="'x'", new_string="'é'")
    assert path.read_bytes() == b"\xef\xbb\xbfname = '\xc3\xa9'\n"


async def test_utf16_file_is_kept(run_tool, make_file) -> None:
    data = b"\xff\xfe" + "a = 1\r\nb = 2\r\n".encode("utf-16-le")
    path = await make_file("wide.txt", data)
    await run_tool(EditTool(), file_path=str(path), old_string="b = 2", new_string="b = ü")
    assert path.read_bytes() == b"\xff\xfe" + "a = 1\r\nb = ü\r\n".encode("utf-16-le")


async def test_latin1_file_is_kept(run_tool, make_file) -> None:
    path = await make_file("legacy.txt", "café = 1\nnaïve = 2\n".encode("latin-1"))
    await run_tool(EditTool(), file_path=str(path), old_string="naïve = 2", new_string="déjà = 3")
    assert path.read_bytes() == "café = 1\ndéjà = 3\n".encode("latin-1")


async def test_latin1_file_refuses_characters_it_cannot_hold(run_tool, make_file) -> None:
    path = await make_file("legacy.txt", "café\n".encode("latin-1"))
    with pytest.raises(ToolError, match="latin-1"):
        await run_tool(EditTool(), file_path=str(path), old_string="café", new_string="☕")
    assert path.read_bytes() == "café\n".encode("latin-1")


async def test_mode_bits_are_kept(run_tool, make_file) -> None:
    path = await make_file("run.sh", b"#!/bin/sh\necho hi\n")
    path.chmod(0o751)  # changes ctime, not mtime: the read record still holds
    await run_tool(EditTool(), file_path=str(path), old_string="hi", new_string="bye")
    assert stat.S_IMODE(path.stat().st_mode) == 0o751
    assert path.read_bytes() == b"#!/bin/sh\necho bye\n"


async def test_symlink_stays_a_link(run_tool, make_file, workspace: Workspace) -> None:
    real = await make_file("real.txt", b"a\n", read=False)
    link = workspace.root / "link.txt"
    link.symlink_to(real)
    await run_tool(ReadTool(), file_path=str(link))
    await run_tool(EditTool(), file_path=str(link), old_string="a", new_string="b")
    assert link.is_symlink()
    assert real.read_bytes() == b"b\n"


# --- atomicity ---------------------------------------------------------------------


async def test_failed_replace_leaves_the_file_and_no_temp(
    run_tool, make_file, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = await make_file("a.py", b"x = 1\n")

    def broken_replace(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(ToolError, match="No space left"):
        await run_tool(EditTool(), file_path=str(path), old_string="1", new_string="2")
    monkeypatch.undo()
    assert path.read_bytes() == b"x = 1\n"
    assert leftovers(path.parent) == []
    # The record still matches the untouched file, so a retry works.
    await run_tool(EditTool(), file_path=str(path), old_string="1", new_string="2")
    assert path.read_bytes() == b"x = 2\n"


def test_atomic_write_refuses_a_file_changed_under_it(tmp_path: Path) -> None:
    path = tmp_path / "a.txt"
    path.write_bytes(b"old")
    seen = snapshot_of(path.stat())
    path.write_bytes(b"changed by someone")
    with pytest.raises(FileChangedError):
        atomic_write(path, b"new", expected=seen)
    assert path.read_bytes() == b"changed by someone"
    assert leftovers(tmp_path) == []


def test_atomic_write_new_file_honours_umask(tmp_path: Path) -> None:
    old = os.umask(0o027)
    try:
        atomic_write(tmp_path / "n.txt", b"x")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "n.txt").stat().st_mode) == 0o640


# --- the pure replacement and the diff ---------------------------------------------


def test_replace_exact_maps_crlf_positions() -> None:
    result = replace_exact(
        "a\r\nb\r\nc\r\n", "\nb\n", "\nB\n", replace_all=False, newline="\r\n", display="f"
    )
    assert result.text == "a\r\nB\r\nc\r\n"
    assert result.spans == [(1, 6)]


def test_diff_hunks_for_a_one_line_change() -> None:
    old = "".join(f"{i}\n" for i in range(1, 11))
    new = old.replace("5\n", "five\n")
    assert diff_hunks(old, new) == [
        DiffHunk(
            old_start=2,
            old_lines=7,
            new_start=2,
            new_lines=7,
            lines=(" 2", " 3", " 4", "-5", "+five", " 6", " 7", " 8"),
        )
    ]


def test_diff_hunks_split_far_apart_changes() -> None:
    old = "".join(f"{i}\n" for i in range(1, 31))
    new = old.replace("3\n", "three\n", 1).replace("\n27\n", "\n27\nextra\n")
    hunks = diff_hunks(old, new)
    assert len(hunks) == 2
    assert hunks[0].old_start == 1 and hunks[0].lines[:3] == (" 1", " 2", "-3")
    assert hunks[1].lines == (" 25", " 26", " 27", "+extra", " 28", " 29", " 30")
    assert (hunks[1].old_start, hunks[1].old_lines) == (25, 6)
    assert (hunks[1].new_start, hunks[1].new_lines) == (25, 7)


def hunk_headers(diff: DiffDisplay) -> list[str]:
    """The unified-diff `@@` line of each hunk."""
    return [f"@@ -{h.old_start},{h.old_lines} +{h.new_start},{h.new_lines} @@" for h in diff.hunks]


def test_diff_of_insertion_into_empty_text() -> None:
    diff = build_diff("n.txt", "", "a\nb\n")
    assert diff.hunks == (
        DiffHunk(old_start=0, old_lines=0, new_start=1, new_lines=2, lines=("+a", "+b")),
    )
    assert (diff.added, diff.removed) == (2, 0)
    assert hunk_headers(diff) == ["@@ -0,0 +1,2 @@"]


def test_diff_of_identical_texts_is_empty() -> None:
    assert diff_hunks("a\nb\n", "a\nb\n") == []


async def test_edit_display_is_a_diff(run_tool, make_file) -> None:
    path = await make_file("a.txt", b"1\n2\n3\n4\n5\n6\n7\n8\n9\n")
    result = await run_tool(EditTool(), file_path=str(path), old_string="5", new_string="five")
    assert result.display == DiffDisplay(
        path="a.txt",
        hunks=(
            DiffHunk(
                old_start=2,
                old_lines=7,
                new_start=2,
                new_lines=7,
                lines=(" 2", " 3", " 4", "-5", "+five", " 6", " 7", " 8"),
            ),
        ),
        added=1,
        removed=1,
    )


async def test_crlf_edit_diff_lines_have_no_cr(run_tool, make_file) -> None:
    path = await make_file("w.txt", b"a\r\nb\r\n")
    result = await run_tool(EditTool(), file_path=str(path), old_string="b", new_string="c")
    assert result.display.hunks[0].lines == (" a", "-b", "+c")
