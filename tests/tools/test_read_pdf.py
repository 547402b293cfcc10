"""Read of a PDF: `pages`, the text of each page, a picture of a page with little text,
Claude Code's limits, and hostile files (each one sentence, in bounded memory and time).

These run the real PDF child process (tools/pdf_worker.py) on PDFs written byte by
byte (tests/tools/pdf_files.py)."""

from __future__ import annotations

import base64
import struct
import sys
from pathlib import Path

import pytest

import agentcli.tools.pdf as pdf_module
from agentcli.tools.base import ToolError, Workspace
from agentcli.tools.display import PdfDisplay
from agentcli.tools.pdf import PdfLimits, read_pdf
from agentcli.tools.read import ReadTool
from tests.tools.pdf_files import bomb_pdf, build_pdf, encrypted_pdf, page_content, text_pdf

PARAGRAPH = [f"Line {i}: the quick brown fox jumps over the lazy dog." for i in range(12)]


def write(workspace: Workspace, name: str, data: bytes) -> Path:
    path = workspace.root / name
    path.write_bytes(data)
    return path


def texts(result) -> str:
    return "\n".join(p["text"] for p in result.content if p["type"] == "text")


def pictures(result) -> list[bytes]:
    return [base64.b64decode(p["source"]["data"]) for p in result.content if p["type"] == "image"]


def png_size(data: bytes) -> tuple[int, int]:
    assert data.startswith(b"\x89PNG\r\n\x1a\n")
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def pdf_pages(count: int) -> bytes:
    return text_pdf([[f"This is page {n}.", *PARAGRAPH] for n in range(1, count + 1)])


async def test_text_of_each_page_and_a_picture_of_a_page_with_little_text(run_tool, workspace):
    path = write(workspace, "spec.pdf", text_pdf([["Chapter one", *PARAGRAPH], ["Figure 1"]]))

    result = await run_tool(ReadTool(), file_path=str(path))

    shown = texts(result)
    assert "spec.pdf: PDF of 2 pages; showing pages 1-2." in shown
    assert "--- Page 1 ---\nChapter one\nLine 0: the quick brown fox" in shown
    assert "--- Page 2 ---\nFigure 1\n(Page 2 has little text; a picture of it follows.)" in shown
    [picture] = pictures(result)  # page 1 has plenty of text: no picture of it
    assert png_size(picture) == (850, 1100)  # US Letter at 100 dpi
    assert result.content[-1]["type"] == "image" and not result.is_error
    assert result.display == PdfDisplay(path="spec.pdf", page_count=2, first=1, last=2, images=1)
    assert str(path) in workspace.read_files  # read, as any file Read shows


async def test_pages_picks_one_page_or_a_range(run_tool, workspace):
    path = write(workspace, "long.pdf", pdf_pages(30))

    one = await run_tool(ReadTool(), file_path=str(path), pages="3")
    some = await run_tool(ReadTool(), file_path=str(path), pages=" 28 - 30 ")

    assert "PDF of 30 pages; showing page 3." in texts(one)
    assert "This is page 3." in texts(one) and "This is page 4." not in texts(one)
    assert [f"--- Page {n} ---" in texts(some) for n in (27, 28, 29, 30)] == [
        False,
        True,
        True,
        True,
    ]
    assert some.display.first == 28 and some.display.last == 30


async def test_a_long_pdf_without_pages_gives_its_page_count_and_first_pages(run_tool, workspace):
    path = write(workspace, "long.pdf", pdf_pages(31))
    short = write(workspace, "short.pdf", pdf_pages(10))

    first = texts(await run_tool(ReadTool(), file_path=str(path)))
    whole = texts(await run_tool(ReadTool(), file_path=str(short)))

    assert "long.pdf: PDF of 31 pages; showing pages 1-10." in first
    assert "--- Page 10 ---" in first and "--- Page 11 ---" not in first
    assert first.endswith(
        "(long.pdf has 31 pages; without `pages` Read shows the first 10. Call Read again "
        'with pages for the others, e.g. pages: "11-30" (at most 20 pages a call).)'
    )
    assert "--- Page 10 ---" in whole and "has 10 pages; without" not in whole


@pytest.mark.parametrize(
    ("pages", "says"),
    [
        (
            "1-21",
            'asks for 21 pages; Read returns at most 20 pages a call. Ask for a shorter range, e.g. pages: "1-20".',
        ),
        ("0", "pages count from 1"),
        ("5-2", "from a lower page to a higher one"),
        ("1,3", 'pages must be one page ("3") or a range ("1-5")'),
        ("", 'pages must be one page ("3") or a range ("1-5")'),
        (
            "31",
            "long.pdf has only 30 pages, so there is no page 31. Ask for pages between 1 and 30.",
        ),
    ],
)
async def test_bad_pages_get_one_clear_sentence(run_tool, workspace, pages, says):
    path = write(workspace, "long.pdf", pdf_pages(30))

    with pytest.raises(ToolError) as refused:
        await run_tool(ReadTool(), file_path=str(path), pages=pages)

    assert says in str(refused.value)


async def test_a_range_past_the_end_shows_the_pages_there_are(run_tool, workspace):
    path = write(workspace, "five.pdf", pdf_pages(5))

    result = await run_tool(ReadTool(), file_path=str(path), pages="4-9")

    assert "PDF of 5 pages; showing pages 4-5." in texts(result)


async def test_pages_is_refused_for_a_file_that_is_not_a_pdf(run_tool, workspace):
    path = write(workspace, "notes.txt", b"plain text\n")

    with pytest.raises(ToolError) as refused:
        await run_tool(ReadTool(), file_path=str(path), pages="1")

    assert "pages is only for PDF files, and notes.txt is not one" in str(refused.value)


async def test_a_pdf_under_another_name_is_read_as_a_pdf(run_tool, workspace):
    path = write(workspace, "download", text_pdf([["Invoice 42", *PARAGRAPH]]))

    result = await run_tool(ReadTool(), file_path=str(path))

    assert "--- Page 1 ---\nInvoice 42" in texts(result)


# --- hostile files ------------------------------------------------------------------


async def test_a_broken_cross_reference_table_is_repaired(run_tool, workspace):
    path = write(workspace, "broken.pdf", text_pdf([["Still here", *PARAGRAPH]], break_xref=True))

    result = await run_tool(ReadTool(), file_path=str(path))

    assert "Still here" in texts(result)


@pytest.mark.parametrize(
    ("data", "says"),
    [
        (encrypted_pdf(), "bad.pdf is an encrypted PDF that needs a password to open"),
        (b"%PDF-1.7\nnot really\n", "bad.pdf is not a PDF that can be opened: it is damaged"),
        (b"\x00\x01 random bytes" * 100, "bad.pdf is not a PDF that can be opened"),
        (text_pdf([["x"]], count=0)[:60], "bad.pdf is not a PDF that can be opened"),
    ],
)
async def test_a_pdf_that_cannot_be_opened_gets_one_sentence(run_tool, workspace, data, says):
    path = write(workspace, "bad.pdf", data)

    with pytest.raises(ToolError) as refused:
        await run_tool(ReadTool(), file_path=str(path))

    assert says in str(refused.value) and "Traceback" not in str(refused.value)


async def test_a_page_tree_claiming_a_billion_pages_counts_the_real_ones(run_tool, workspace):
    path = write(workspace, "liar.pdf", text_pdf([["Only page", *PARAGRAPH]], count=10**9))

    result = await run_tool(ReadTool(), file_path=str(path), pages="1-20")

    assert "PDF of 1 page; showing page 1." in texts(result)


@pytest.mark.parametrize("box", ["0 0 14400 14400", "0 0 14400 1", "0 0 1e7 1e7"])
async def test_a_huge_page_renders_to_a_bounded_picture(run_tool, workspace, box):
    # 200 inches square (the most PDF allows); a hairline; a size past any limit.
    big = build_pdf([page_content(["tiny"])], media_box=box)
    path = write(workspace, "poster.pdf", big)

    result = await run_tool(ReadTool(), file_path=str(path))

    [picture] = pictures(result)
    assert max(png_size(picture)) <= 1568


def test_a_decompression_bomb_stops_in_the_memory_limit(workspace):
    path = write(workspace, "bomb.pdf", bomb_pdf(3 << 29))  # 1.5 GB of spaces, in 10 MB
    limits = PdfLimits(memory_bytes=512 << 20)

    with open(path, "rb") as handle:
        result = read_pdf(handle.fileno(), "bomb.pdf", None, lambda: False, limits)

    assert texts(result).endswith(
        "(Reading stopped at page 1: the PDF library stopped on it (it may need more than "
        "the 512 MB of memory allowed, or the file is damaged).)"
    )


def test_pages_read_before_the_child_stopped_are_kept(workspace):
    path = write(
        workspace,
        "mixed.pdf",
        build_pdf([page_content(["Fine page", *PARAGRAPH]), bomb_pdf_page()]),
    )
    limits = PdfLimits(memory_bytes=512 << 20)

    with open(path, "rb") as handle:
        result = read_pdf(handle.fileno(), "mixed.pdf", "1-2", lambda: False, limits)

    assert "Fine page" in texts(result)
    assert "(Reading stopped at page 2:" in texts(result)
    assert result.display.last == 1


def bomb_pdf_page():
    from tests.tools.pdf_files import Deflated, bomb_content

    return Deflated(bomb_content(3 << 29))


def test_the_time_limit_ends_the_child(workspace):
    path = write(workspace, "slow.pdf", pdf_pages(2))

    with open(path, "rb") as handle, pytest.raises(ToolError) as refused:
        read_pdf(handle.fileno(), "slow.pdf", None, lambda: False, PdfLimits(wall_seconds=0))

    assert (
        str(refused.value) == "Read could not open slow.pdf: it took longer than the 0 s allowed."
    )


def test_an_interrupt_ends_the_child(workspace):
    path = write(workspace, "a.pdf", pdf_pages(2))

    with open(path, "rb") as handle, pytest.raises(ToolError) as refused:
        read_pdf(handle.fileno(), "a.pdf", None, lambda: True)

    assert str(refused.value) == "Read was interrupted."


def test_the_pictures_of_one_call_share_a_budget(workspace):
    path = write(workspace, "scans.pdf", text_pdf([[f"scan {n}"] for n in range(1, 5)]))
    one_picture = len(base64.b64encode(b"x" * 9_000))
    limits = PdfLimits(images_total_bytes=one_picture)

    with open(path, "rb") as handle:
        result = read_pdf(handle.fileno(), "scans.pdf", None, lambda: False, limits)

    assert 1 <= len(pictures(result)) < 4
    assert "no picture of it: this call's budget for pictures is used up" in texts(result)


def test_without_the_pdf_library_the_result_says_what_is_missing(workspace, monkeypatch):
    blocked = (
        "import runpy, sys; sys.modules['pypdfium2'] = None; "
        "runpy.run_module('agentcli.tools.pdf_worker', run_name='__main__')"
    )
    monkeypatch.setattr(pdf_module, "WORKER_COMMAND", (sys.executable, "-I", "-c", blocked))
    path = write(workspace, "a.pdf", pdf_pages(1))

    with open(path, "rb") as handle, pytest.raises(ToolError) as refused:
        read_pdf(handle.fileno(), "a.pdf", None, lambda: False)

    assert "the PDF library pypdfium2 is not installed" in str(refused.value)
    assert "`pip install pypdfium2`" in str(refused.value)


def test_pdfium_is_not_imported_by_agentcli():
    assert "pypdfium2" not in sys.modules


async def test_a_page_of_endless_text_is_cut_to_its_share_of_the_result(run_tool, workspace):
    dense = [f"{n:05d} " + "lorem ipsum dolor sit amet " * 3 for n in range(2500)]
    path = write(workspace, "dense.pdf", text_pdf([dense, dense]))

    both = await run_tool(ReadTool(), file_path=str(path), pages="1-2")
    one = await run_tool(ReadTool(), file_path=str(path), pages="2")

    assert len(texts(both)) < 40_000 and len(texts(one)) < 40_000
    assert "(The text of page 2 was cut; read this page on its own to see more.)" in texts(both)
    assert "characters, the most a result holds; use `pdftotext` through Bash" in texts(one)
    assert "00000 lorem ipsum" in texts(both).split("--- Page 2 ---")[1]
