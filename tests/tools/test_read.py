"""Read: numbering, windows, streaming, the refusals, images and encodings."""

from __future__ import annotations

import asyncio
import base64
import io
import os
from pathlib import Path

import pytest

import agentcli.tools.read as read_module
from agentcli.tools.base import FileSnapshot, ToolError, Workspace
from agentcli.tools.display import ImageDisplay, ReadDisplay
from agentcli.tools.fileio import number_line
from agentcli.tools.read import ReadInput, ReadTool


def _image(fmt: str) -> bytes:
    """A real small image: what is sent must decode (tests/tools/test_read_images.py)."""
    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", (8, 6), (10, 120, 200)).save(out, format=fmt)
    return out.getvalue()


PNG, JPEG, GIF, WEBP = (_image(fmt) for fmt in ("PNG", "JPEG", "GIF", "WEBP"))


@pytest.fixture
def tool() -> ReadTool:
    return ReadTool()


def write_lines(path: Path, count: int, newline: str = "\n") -> None:
    path.write_bytes("".join(f"line {i}{newline}" for i in range(1, count + 1)).encode())


# --- identity ----------------------------------------------------------------------


def test_tool_identity_and_flags(tool: ReadTool, workspace: Workspace) -> None:
    assert tool.name == "Read"
    assert tool.read_only and tool.concurrency_safe
    inp = ReadInput.model_validate({"file_path": "src/app.py"})
    assert tool.summary(inp, workspace) == "src/app.py"
    assert tool.target_path(inp, workspace) == workspace.root / "src" / "app.py"
    schema = tool.schema()
    assert set(schema["input_schema"]["properties"]) == {"file_path", "offset", "limit", "pages"}
    assert all("description" in p for p in schema["input_schema"]["properties"].values())
    assert "2000" in schema["description"]


def test_unknown_fields_are_rejected() -> None:
    with pytest.raises(ValueError):
        ReadInput.model_validate({"file_path": "/x", "path": "/y"})


# --- numbering and windows ---------------------------------------------------------


async def test_lines_are_numbered_cat_n_style(run_tool, workspace: Workspace) -> None:
    target = workspace.root / "a.txt"
    target.write_text("alpha\n\tindented\n\nlast")
    result = await run_tool(ReadTool(), file_path=str(target))
    assert result.content == "     1\talpha\n     2\t\tindented\n     3\t\n     4\tlast"
    assert not result.is_error
    assert result.display == ReadDisplay(
        path="a.txt", lines=4, offset=1, truncated=False, encoding="utf-8"
    )


def test_numbers_are_right_aligned_in_six_columns() -> None:
    assert number_line(7, "x") == "     7\tx"
    assert number_line(123456, "x") == "123456\tx"
    assert number_line(1234567, "x") == "1234567\tx"  # wider numbers are not cut


async def test_offset_and_limit_select_a_window(run_tool, workspace: Workspace) -> None:
    target = workspace.root / "a.txt"
    write_lines(target, 20)
    result = await run_tool(ReadTool(), file_path=str(target), offset=9, limit=3)
    body, _, note = result.content.partition("\n\n")
    assert body == "     9\tline 9\n    10\tline 10\n    11\tline 11"
    assert "lines 9-11 of 20" in note
    assert "offset=12" in note
    assert result.display.truncated is True


async def test_window_reaching_the_end_has_no_note(run_tool, workspace: Workspace) -> None:
    target = workspace.root / "a.txt"
    write_lines(target, 5)
    result = await run_tool(ReadTool(), file_path=str(target), offset=4, limit=10)
    assert result.content == "     4\tline 4\n     5\tline 5"


async def test_offset_zero_means_the_start(run_tool, workspace: Workspace) -> None:
    target = workspace.root / "a.txt"
    write_lines(target, 2)
    result = await run_tool(ReadTool(), file_path=str(target), offset=0)
    assert result.content.startswith("     1\tline 1")


async def test_default_limit_is_2000_lines_with_a_note(run_tool, workspace: Workspace) -> None:
    target = workspace.root / "big.txt"
    write_lines(target, 2500)
    result = await run_tool(ReadTool(), file_path=str(target))
    body, _, note = result.content.partition("\n\n")
    lines = body.split("\n")
    assert len(lines) == 2000
    assert lines[-1] == "  2000\tline 2000"
    assert "lines 1-2000 of 2500" in note
    assert "offset=2001" in note
    assert result.display.lines == 2000


async def test_exactly_2000_lines_is_not_truncated(run_tool, workspace: Workspace) -> None:
    target = workspace.root / "a.txt"
    write_lines(target, 2000)
    result = await run_tool(ReadTool(), file_path=str(target))
    assert "offset=" not in result.content
    assert result.display.truncated is False


async def test_offset_beyond_the_end_says_how_many_lines(run_tool, workspace: Workspace) -> None:
    target = workspace.root / "a.txt"
    write_lines(target, 3)
    result = await run_tool(ReadTool(), file_path=str(target), offset=10)
    assert not result.is_error
    assert "has only 3 lines" in result.content
    assert "offset=10" in result.content


async def test_crlf_lines_are_shown_without_cr(run_tool, workspace: Workspace) -> None:
    target = workspace.root / "a.txt"
    target.write_bytes(b"one\r\ntwo\r\n")
    result = await run_tool(ReadTool(), file_path=str(target))
    assert result.content == "     1\tone\n     2\ttwo"


async def test_form_feed_and_line_separator_do_not_split_lines(
    run_tool, workspace: Workspace
) -> None:
    target = workspace.root / "a.txt"
    target.write_text("a\x0cb\u2028c\nd\n", encoding="utf-8")
    result = await run_tool(ReadTool(), file_path=str(target))
    assert result.content == "     1\ta\x0cb\u2028c\n     2\td"


# --- long lines and output size ----------------------------------------------------


async def test_long_line_is_cut_with_a_marker(run_tool, workspace: Workspace) -> None:
    target = workspace.root / "min.js"
    target.write_text("x" * 5000 + "\nshort\n")
    result = await run_tool(ReadTool(), file_path=str(target))
    first, second = result.content.split("\n")
    assert first.startswith("     1\t" + "x" * 2000)
    assert "x" * 2001 not in first
    assert "line cut" in first and "2000" in first
    assert second == "     2\tshort"


async def test_line_of_exactly_2000_chars_is_not_cut(run_tool, workspace: Workspace) -> None:
    target = workspace.root / "a.txt"
    target.write_bytes(b"y" * 2000 + b"\r\n" + b"z" * 2001)
    result = await run_tool(ReadTool(), file_path=str(target))
    first, second = result.content.split("\n")
    assert first == "     1\t" + "y" * 2000
    assert second.startswith("     2\t" + "z" * 2000) and "line cut" in second


async def test_output_size_cap_stops_early_with_offset(run_tool, workspace: Workspace) -> None:
    target = workspace.root / "wide.txt"
    target.write_text(("w" * 1900 + "\n") * 500)
    result = await run_tool(ReadTool(), file_path=str(target))
    body, _, note = result.content.partition("\n\n")
    shown = len(body.split("\n"))
    assert 0 < shown < 500
    assert len(body) <= read_module.MAX_OUTPUT_CHARS
    assert f"offset={shown + 1}" in note
    assert "of 500" in note


async def test_a_default_read_stays_under_the_result_budget_cut_at_a_line(
    run_tool, workspace: Workspace, tmp_path: Path
) -> None:
    """The engine's budget would cut a longer result in the middle, by characters;
    Read stops first, at a line boundary, and says which lines it returned."""
    from agentcli.engine.budget import ToolResultBudget
    from agentcli.engine.orchestration import tool_result_block

    target = workspace.root / "wide.log"
    target.write_text("".join(f"{n:05d} " + "z" * 150 + "\n" for n in range(1, 2001)))
    result = await run_tool(ReadTool(), file_path=str(target))
    body, _, note = result.content.partition("\n\n")
    lines = body.split("\n")
    last = int(lines[-1].split("\t")[0])
    assert lines[-1] == f"{last:>6}\t{last:05d} " + "z" * 150  # a whole line, not a piece
    assert note == (
        f"(Showing lines 1-{last} of 2000 (output size limit reached). "
        f"To read on, call Read with offset={last + 1}.)"
    )
    block = tool_result_block("toolu_1", result)
    messages = [{"role": "user", "content": [block]}]
    shaped = ToolResultBudget(tmp_path / "saved")(messages)
    assert shaped[0]["content"][0] is block  # the budget had nothing to cut


async def test_a_single_huge_line_is_one_line_cut_with_a_marker(
    run_tool, workspace: Workspace
) -> None:
    target = workspace.root / "bundle.min.js"
    target.write_text("x" * 5_000_000)
    result = await run_tool(ReadTool(), file_path=str(target))
    assert result.content.count("\n") == 0 and result.content.startswith("     1\t")
    assert "line cut" in result.content and "offset=" not in result.content
    assert result.display.lines == 1 and result.display.truncated is False


# --- streaming ---------------------------------------------------------------------


@pytest.fixture
def large_file(tmp_path: Path) -> Path:
    """About 50 MB of 100-byte lines (2000 of them fit the output cap)."""
    path = tmp_path / "project" / "huge.log"
    block = "".join(f"entry {i:08d} " + "." * 84 + "\n" for i in range(10_000)).encode()
    with open(path, "wb") as handle:
        for _ in range(50):
            handle.write(block)
    assert path.stat().st_size >= 50_000_000
    return path


async def test_large_file_read_stops_after_the_window(
    run_tool, large_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Count the bytes Read pulls from the file: a few hundred KB, not 50 MB."""
    pulled = [0]

    class CountingFile(io.FileIO):
        def readinto(self, buffer):  # type: ignore[override]
            n = super().readinto(buffer)
            pulled[0] += n or 0
            return n

    def counting_open(path, mode="r", *args, **kwargs):
        assert mode == "rb"
        return io.BufferedReader(CountingFile(path, "r"))

    monkeypatch.setattr(read_module, "open", counting_open, raising=False)
    result = await run_tool(ReadTool(), file_path=str(large_file))
    body, _, note = result.content.partition("\n\n")
    shown = len(body.split("\n"))
    assert 0 < shown < 2000 and len(body) <= read_module.MAX_OUTPUT_CHARS
    assert "more lines follow" in note  # the total is not counted for a huge file
    assert f"offset={shown + 1}" in note
    assert 0 < pulled[0] < 1_000_000


@pytest.mark.skipif(not Path("/proc/self/io").exists(), reason="needs Linux /proc/self/io")
async def test_large_file_read_syscall_bytes_stay_small(run_tool, large_file: Path) -> None:
    """The same, measured by the kernel: bytes read by this process during the call."""

    def rchar() -> int:
        for line in Path("/proc/self/io").read_text().splitlines():
            if line.startswith("rchar:"):
                return int(line.split()[1])
        raise AssertionError("no rchar")

    before = rchar()
    result = await run_tool(ReadTool(), file_path=str(large_file), offset=1000, limit=2000)
    spent = rchar() - before
    assert result.content.startswith("  1000\tentry 00000999")
    assert spent < 5_000_000


async def test_abort_stops_a_long_skip(ctx, workspace: Workspace) -> None:
    target = workspace.root / "a.txt"
    write_lines(target, 20_000)
    ctx.abort.abort()
    inp = ReadInput.model_validate({"file_path": str(target), "offset": 19_000})
    with pytest.raises(ToolError, match="interrupted"):
        await ReadTool().run(inp, ctx)


# --- refusals and notes ------------------------------------------------------------


async def test_missing_file_suggests_a_similar_name(run_tool, workspace: Workspace) -> None:
    (workspace.root / "config.yaml").write_text("a: 1\n")
    with pytest.raises(ToolError) as err:
        await run_tool(ReadTool(), file_path=str(workspace.root / "config.yml"))
    message = str(err.value)
    assert "does not exist" in message
    assert str(workspace.root / "config.yaml") in message


async def test_missing_file_without_similar_names(run_tool, workspace: Workspace) -> None:
    with pytest.raises(ToolError) as err:
        await run_tool(ReadTool(), file_path=str(workspace.root / "nothing.txt"))
    assert "does not exist" in str(err.value)
    assert "Did you mean" not in str(err.value)


async def test_missing_folder_is_named(run_tool, workspace: Workspace) -> None:
    with pytest.raises(ToolError, match=r"folder .*does not exist"):
        await run_tool(ReadTool(), file_path=str(workspace.root / "nope" / "a.txt"))


async def test_directory_points_to_glob_and_ls(run_tool, workspace: Workspace) -> None:
    (workspace.root / "src").mkdir()
    with pytest.raises(ToolError) as err:
        await run_tool(ReadTool(), file_path=str(workspace.root / "src"))
    assert "directory" in str(err.value)
    assert "Glob" in str(err.value) and "ls" in str(err.value)


async def test_binary_file_is_refused(run_tool, workspace: Workspace) -> None:
    target = workspace.root / "prog.bin"
    target.write_bytes(b"\x7fELF\x02\x01\x01\x00" + bytes(range(256)))
    with pytest.raises(ToolError, match="binary"):
        await run_tool(ReadTool(), file_path=str(target))
    assert str(target) not in workspace.read_files


async def test_empty_file_is_a_note_not_an_error(run_tool, workspace: Workspace) -> None:
    target = workspace.root / "empty.py"
    target.touch()
    result = await run_tool(ReadTool(), file_path=str(target))
    assert not result.is_error
    assert "exists but is empty" in result.content
    assert str(target) in workspace.read_files


async def test_fifo_is_refused_without_blocking(run_tool, workspace: Workspace) -> None:
    if not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs here")
    target = workspace.root / "pipe"
    os.mkfifo(target)
    # Nobody writes to the pipe: opening it for reading would block, so Read must look first.
    with pytest.raises(ToolError, match="not a regular file"):
        await asyncio.wait_for(run_tool(ReadTool(), file_path=str(target)), timeout=10)


# --- paths and records -------------------------------------------------------------


async def test_relative_path_is_resolved_against_the_project(
    run_tool, workspace: Workspace
) -> None:
    (workspace.root / "src").mkdir()
    target = workspace.root / "src" / "app.py"
    target.write_text("print('hi')\n")
    result = await run_tool(ReadTool(), file_path="src/app.py")
    assert result.content == "     1\tprint('hi')"
    assert result.display.path == "src/app.py"
    assert str(target) in workspace.read_files


async def test_read_records_a_snapshot(run_tool, workspace: Workspace) -> None:
    target = workspace.root / "a.txt"
    write_lines(target, 3000)
    await run_tool(ReadTool(), file_path=str(target), limit=5)  # a partial read counts
    st = target.stat()
    assert workspace.read_files[str(target)] == FileSnapshot(st.st_mtime_ns, st.st_size)


# --- encodings ---------------------------------------------------------------------


async def test_latin1_file_reads_and_says_so(run_tool, workspace: Workspace) -> None:
    target = workspace.root / "legacy.txt"
    target.write_bytes("café\nnaïve\n".encode("latin-1"))
    result = await run_tool(ReadTool(), file_path=str(target))
    assert result.content.startswith("     1\tcafé\n     2\tnaïve")
    assert "latin-1" in result.content
    assert result.display.encoding == "latin-1"


async def test_invalid_utf8_late_in_a_small_file_uses_latin1_throughout(
    run_tool, workspace: Workspace
) -> None:
    """Read agrees with Edit, which decodes the whole file at once."""
    target = workspace.root / "mixed.txt"
    target.write_bytes(b"plain\n" * 3000 + b"\xff\n")
    result = await run_tool(ReadTool(), file_path=str(target), limit=1)
    assert result.display.encoding == "latin-1"


async def test_utf8_bom_is_not_shown(run_tool, workspace: Workspace) -> None:
    target = workspace.root / "bom.txt"
    target.write_bytes(b"\xef\xbb\xbfhello\n")
    result = await run_tool(ReadTool(), file_path=str(target))
    assert result.content == "     1\thello"


async def test_utf16_with_bom_reads(run_tool, workspace: Workspace) -> None:
    target = workspace.root / "wide.txt"
    target.write_bytes(b"\xff\xfe" + "héllo\r\nwörld\r\n".encode("utf-16-le"))
    result = await run_tool(ReadTool(), file_path=str(target))
    assert result.content.startswith("     1\théllo\n     2\twörld")
    assert "utf-16" in result.content


# --- images ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "data", "media_type"),
    [
        ("shot.png", PNG, "image/png"),
        ("photo.jpg", JPEG, "image/jpeg"),
        ("photo.JPEG", JPEG, "image/jpeg"),
        ("anim.gif", GIF, "image/gif"),
        ("pic.webp", WEBP, "image/webp"),
        ("mislabelled.png", JPEG, "image/jpeg"),  # the bytes decide the media type
        ("no_extension", PNG, "image/png"),
    ],
)
async def test_image_is_returned_as_a_block(
    run_tool, workspace: Workspace, name: str, data: bytes, media_type: str
) -> None:
    target = workspace.root / name
    target.write_bytes(data)
    result = await run_tool(ReadTool(), file_path=str(target))
    assert isinstance(result.content, list)
    [block] = result.content
    assert block["type"] == "image"
    assert block["source"]["type"] == "base64"
    assert block["source"]["media_type"] == media_type
    assert base64.b64decode(block["source"]["data"]) == data
    assert isinstance(result.display, ImageDisplay)
    assert str(target) in workspace.read_files


async def test_oversized_image_is_refused(
    run_tool, workspace: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(read_module, "MAX_IMAGE_BYTES", 1024)
    target = workspace.root / "big.png"
    target.write_bytes(PNG + b"\x00" * 2048)
    with pytest.raises(ToolError, match="MB"):
        await run_tool(ReadTool(), file_path=str(target))


async def test_image_extension_with_other_binary_content(run_tool, workspace: Workspace) -> None:
    target = workspace.root / "fake.png"
    target.write_bytes(b"\x00\x01\x02garbage")
    with pytest.raises(ToolError, match="not a PNG, JPEG, GIF or WebP"):
        await run_tool(ReadTool(), file_path=str(target))


async def test_text_under_an_image_name_reads_as_text(run_tool, workspace: Workspace) -> None:
    target = workspace.root / "icon.png"
    target.write_text("<svg/>\n")
    result = await run_tool(ReadTool(), file_path=str(target))
    assert result.content == "     1\t<svg/>"
