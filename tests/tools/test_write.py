"""Write: creating, overwriting only what was read, formats, atomicity and the display."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from agentcli.tools.base import FileSnapshot, ToolError, Workspace
from agentcli.tools.display import CreatedDisplay, DiffDisplay, DiffHunk
from agentcli.tools.edit import EditTool
from agentcli.tools.read import ReadTool
from agentcli.tools.write import WriteInput, WriteTool


def test_tool_identity_and_flags(workspace: Workspace) -> None:
    tool = WriteTool()
    assert tool.name == "Write"
    assert not tool.read_only and not tool.concurrency_safe
    inp = WriteInput.model_validate({"file_path": "docs/a.md", "content": "x"})
    assert tool.summary(inp, workspace) == "docs/a.md"
    assert tool.target_path(inp, workspace) == workspace.root / "docs" / "a.md"
    props = tool.schema()["input_schema"]["properties"]
    assert set(props) == {"file_path", "content"}
    assert all(p.get("description") for p in props.values())


# --- creating ----------------------------------------------------------------------


async def test_creates_a_file_and_its_folders(run_tool, workspace: Workspace) -> None:
    target = workspace.root / "a" / "b" / "c.py"
    result = await run_tool(WriteTool(), file_path=str(target), content="x = 1\ny = 2\n")
    assert target.read_bytes() == b"x = 1\ny = 2\n"
    assert not result.is_error
    assert "Created a/b/c.py" in result.content
    assert result.display == CreatedDisplay(path="a/b/c.py", lines=2)
    st = target.stat()
    assert workspace.read_files[str(target)] == FileSnapshot(st.st_mtime_ns, st.st_size)


async def test_created_file_can_be_edited_at_once(run_tool, workspace: Workspace) -> None:
    target = workspace.root / "n.py"
    await run_tool(WriteTool(), file_path=str(target), content="a = 1\n")
    await run_tool(EditTool(), file_path=str(target), old_string="1", new_string="2")
    assert target.read_text() == "a = 2\n"


async def test_content_is_written_exactly(run_tool, workspace: Workspace) -> None:
    target = workspace.root / "w.txt"
    content = "crlf\r\nlf\nno end ü"
    await run_tool(WriteTool(), file_path=str(target), content=content)
    assert target.read_bytes() == content.encode("utf-8")


async def test_new_file_gets_the_usual_mode(run_tool, workspace: Workspace) -> None:
    old = os.umask(0o022)
    try:
        target = workspace.root / "m.txt"
        await run_tool(WriteTool(), file_path=str(target), content="x")
    finally:
        os.umask(old)
    assert stat.S_IMODE(target.stat().st_mode) == 0o644


async def test_relative_path(run_tool, workspace: Workspace) -> None:
    result = await run_tool(WriteTool(), file_path="notes/todo.md", content="- a\n")
    assert (workspace.root / "notes" / "todo.md").read_text() == "- a\n"
    assert result.display.path == "notes/todo.md"


async def test_empty_content_creates_an_empty_file(run_tool, workspace: Workspace) -> None:
    target = workspace.root / "__init__.py"
    result = await run_tool(WriteTool(), file_path=str(target), content="")
    assert target.read_bytes() == b""
    assert result.display.lines == 0


# --- refusals ----------------------------------------------------------------------


async def test_overwrite_requires_a_read(run_tool, workspace: Workspace) -> None:
    target = workspace.root / "a.py"
    target.write_text("old\n")
    with pytest.raises(ToolError) as err:
        await run_tool(WriteTool(), file_path=str(target), content="new\n")
    assert "has not been read" in str(err.value)
    assert target.read_text() == "old\n"


async def test_overwrite_refuses_a_file_changed_since_read(run_tool, workspace: Workspace) -> None:
    target = workspace.root / "a.py"
    target.write_text("old\n")
    await run_tool(ReadTool(), file_path=str(target))
    target.write_text("changed meanwhile\n")
    with pytest.raises(ToolError, match="modified since it was last read"):
        await run_tool(WriteTool(), file_path=str(target), content="new\n")
    assert target.read_text() == "changed meanwhile\n"


async def test_directory_is_refused(run_tool, workspace: Workspace) -> None:
    (workspace.root / "d").mkdir()
    with pytest.raises(ToolError, match="directory"):
        await run_tool(WriteTool(), file_path=str(workspace.root / "d"), content="x")


async def test_parent_that_is_a_file_is_refused(run_tool, workspace: Workspace) -> None:
    (workspace.root / "f").write_text("x")
    with pytest.raises(ToolError, match="is a file"):
        await run_tool(WriteTool(), file_path=str(workspace.root / "f" / "g" / "h.txt"), content="")


# --- overwriting -------------------------------------------------------------------


async def test_overwrite_after_read_returns_a_diff(run_tool, workspace: Workspace) -> None:
    target = workspace.root / "a.py"
    target.write_text("a\nb\nc\n")
    await run_tool(ReadTool(), file_path=str(target))
    result = await run_tool(WriteTool(), file_path=str(target), content="a\nB\nc\nd\n")
    assert target.read_text() == "a\nB\nc\nd\n"
    assert "Updated a.py" in result.content
    assert result.display == DiffDisplay(
        path="a.py",
        hunks=(
            DiffHunk(
                old_start=1,
                old_lines=3,
                new_start=1,
                new_lines=4,
                lines=(" a", "-b", "+B", " c", "+d"),
            ),
        ),
        added=2,
        removed=1,
    )
    st = target.stat()
    assert workspace.read_files[str(target)] == FileSnapshot(st.st_mtime_ns, st.st_size)


async def test_overwrite_keeps_mode_bits(run_tool, workspace: Workspace) -> None:
    target = workspace.root / "run.sh"
    target.write_text("#!/bin/sh\n")
    target.chmod(0o700)
    await run_tool(ReadTool(), file_path=str(target))
    await run_tool(WriteTool(), file_path=str(target), content="#!/bin/sh\necho\n")
    assert stat.S_IMODE(target.stat().st_mode) == 0o700


async def test_overwrite_writes_the_models_line_endings(run_tool, workspace: Workspace) -> None:
    target = workspace.root / "w.txt"
    target.write_bytes(b"a\r\nb\r\n")
    await run_tool(ReadTool(), file_path=str(target))
    await run_tool(WriteTool(), file_path=str(target), content="x\ny\n")
    assert target.read_bytes() == b"x\ny\n"


async def test_overwrite_keeps_a_bom(run_tool, workspace: Workspace) -> None:
    target = workspace.root / "b.txt"
    target.write_bytes(b"\xef\xbb\xbfold\n")
    await run_tool(ReadTool(), file_path=str(target))
    await run_tool(WriteTool(), file_path=str(target), content="néw\n")
    assert target.read_bytes() == b"\xef\xbb\xbf" + "néw\n".encode()


async def test_latin1_overwrite_falls_back_to_utf8_when_needed(
    run_tool, workspace: Workspace
) -> None:
    target = workspace.root / "l.txt"
    target.write_bytes("café\n".encode("latin-1"))
    await run_tool(ReadTool(), file_path=str(target))
    result = await run_tool(WriteTool(), file_path=str(target), content="thé ☕\n")
    assert target.read_bytes() == "thé ☕\n".encode()
    assert "UTF-8 now" in result.content


async def test_latin1_overwrite_stays_latin1_when_it_fits(run_tool, workspace: Workspace) -> None:
    target = workspace.root / "l.txt"
    target.write_bytes("café\n".encode("latin-1"))
    await run_tool(ReadTool(), file_path=str(target))
    await run_tool(WriteTool(), file_path=str(target), content="thé\n")
    assert target.read_bytes() == "thé\n".encode("latin-1")


async def test_identical_content_writes_nothing(run_tool, workspace: Workspace) -> None:
    target = workspace.root / "same.txt"
    target.write_text("same\n")
    await run_tool(ReadTool(), file_path=str(target))
    before = target.stat().st_mtime_ns
    result = await run_tool(WriteTool(), file_path=str(target), content="same\n")
    assert "nothing was written" in result.content
    assert target.stat().st_mtime_ns == before
    assert result.display.hunks == ()


async def test_failed_write_leaves_the_file_and_no_temp(
    run_tool, workspace: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = workspace.root / "a.txt"
    target.write_text("keep me\n")
    await run_tool(ReadTool(), file_path=str(target))

    def broken_replace(src: str, dst: str) -> None:
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(ToolError, match="Input/output error"):
        await run_tool(WriteTool(), file_path=str(target), content="new\n")
    assert target.read_text() == "keep me\n"
    assert [p.name for p in workspace.root.iterdir()] == ["a.txt"]


async def test_failed_create_leaves_nothing(
    run_tool, workspace: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken_replace(src: str, dst: str) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(ToolError, match="No space"):
        await run_tool(WriteTool(), file_path=str(workspace.root / "n.txt"), content="x")
    assert list(workspace.root.iterdir()) == []
    assert str(workspace.root / "n.txt") not in workspace.read_files


def test_unknown_fields_are_rejected() -> None:
    with pytest.raises(ValueError):
        WriteInput.model_validate({"file_path": "/x", "content": "", "mode": "w"})


async def test_write_over_an_image_shows_create(run_tool, workspace: Workspace) -> None:
    target = workspace.root / "p.png"
    from tests.tools.test_read import PNG  # a real one: Read refuses what does not decode

    target.write_bytes(PNG)
    await run_tool(ReadTool(), file_path=str(target))
    result = await run_tool(WriteTool(), file_path=str(target), content="text now\n")
    assert result.display == CreatedDisplay(path="p.png", lines=1)
    assert Path(target).read_text() == "text now\n"
