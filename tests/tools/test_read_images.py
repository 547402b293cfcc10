"""Every image Read (or a notebook's output) hands the model is one the Messages API
takes in any conversation, however long, since each request sends them all again.

The API rejects an image past 5 MB of base64, past 8000 px a side, past 2000 px a
side once the request holds more than 20 images, and one it cannot decode; a
rejected image stays in the conversation and fails every request after it. The
fake API's own check (tests/fakeapi/images.py, Pillow) judges what was sent.
"""

from __future__ import annotations

import base64
import io
import os
import random
import struct
import zlib

import nbformat
import pytest
from PIL import Image

from agentcli.tools.base import ToolError
from agentcli.tools.read import ReadTool
from tests.fakeapi.images import check_images


def picture(size: tuple[int, int], fmt: str = "PNG", noise: bool = False) -> bytes:
    if noise:  # incompressible: the file is about as big as its pixels
        image = Image.frombytes("RGB", size, os.urandom(size[0] * size[1] * 3))
    else:
        image = Image.new("RGB", size, (random.randrange(256), 120, 200))
    out = io.BytesIO()
    image.save(out, format=fmt)
    return out.getvalue()


def images_of(result) -> list[dict]:
    return [p for p in result.content if isinstance(p, dict) and p.get("type") == "image"]


def texts_of(result) -> str:
    return "\n".join(p["text"] for p in result.content if p.get("type") == "text")


def conversation_of(results) -> list[dict]:
    """Each result as the tool result of a turn, as the requests carry them."""
    messages: list[dict] = []
    for n, result in enumerate(results):
        messages.append({"role": "assistant", "content": [{"type": "tool_use", "id": f"t{n}"}]})
        block = {"type": "tool_result", "tool_use_id": f"t{n}", "content": result.content}
        messages.append({"role": "user", "content": [block]})
    return messages


def size_of(block: dict) -> tuple[int, int]:
    with Image.open(io.BytesIO(base64.b64decode(block["source"]["data"]))) as image:
        return image.size


async def test_screenshots_read_through_a_long_session_are_all_taken(run_tool, workspace):
    results = []
    for n in range(21):  # past 20 images, 2000 px is every image's limit
        path = workspace.root / f"shot{n}.png"
        # Wide and short: past the 2000 px edge like a screenshot, with a tenth of its
        # pixels to scale (21 full screenshots took seconds of Pillow's time).
        path.write_bytes(picture((2600, 140)))
        results.append(await run_tool(ReadTool(), file_path=str(path)))

    assert check_images(conversation_of(results)) is None
    assert all(max(size_of(images_of(r)[0])) == 2000 for r in results)


async def test_a_scaled_image_says_so_for_the_models_coordinates(run_tool, workspace):
    path = workspace.root / "wide.png"
    path.write_bytes(picture((4000, 2500)))

    result = await run_tool(ReadTool(), file_path=str(path))

    [block] = images_of(result)
    assert size_of(block) == (2000, 1250)
    assert "scaled from 4000×2500 to 2000×1250" in texts_of(result)


async def test_an_image_within_the_limits_goes_as_its_own_bytes(run_tool, workspace):
    data = picture((800, 600), fmt="JPEG")
    path = workspace.root / "photo.jpg"
    path.write_bytes(data)

    result = await run_tool(ReadTool(), file_path=str(path))

    [block] = images_of(result)
    assert base64.b64decode(block["source"]["data"]) == data
    assert block["source"]["media_type"] == "image/jpeg" and texts_of(result) == ""


async def test_an_image_past_five_megabytes_is_made_to_fit(run_tool, workspace):
    path = workspace.root / "noise.png"
    path.write_bytes(picture((1900, 1900), noise=True))
    assert path.stat().st_size > 5 * 1024 * 1024

    result = await run_tool(ReadTool(), file_path=str(path))

    assert check_images(conversation_of([result])) is None


async def test_an_image_with_no_pixels_to_decode_is_refused_not_sent(run_tool, workspace):
    path = workspace.root / "broken.png"
    path.write_bytes(picture((300, 200), noise=True)[:60])  # its header whole, no pixels

    with pytest.raises(
        ToolError, match=r"broken\.png could not be shown as an image: it could not be decoded"
    ):
        await run_tool(ReadTool(), file_path=str(path))


def with_bad_ancillary_checksum(png: bytes) -> bytes:
    """A tEXt chunk whose CRC is wrong before the pixels: libpng-based decoders let it
    pass, Pillow does not (the MCP reference server's sample image is such a file)."""
    chunk = b"tEXt" + b"Comment\x00made here"
    bad = struct.pack(">I", len(chunk) - 4) + chunk + struct.pack(">I", zlib.crc32(chunk) ^ 1)
    return png[:33] + bad + png[33:]  # after the signature and IHDR


async def test_a_png_with_a_bad_ancillary_chunk_is_sent_without_it(run_tool, workspace):
    data = picture((300, 200), noise=True)
    damaged = with_bad_ancillary_checksum(data)
    path = workspace.root / "damaged.png"
    path.write_bytes(damaged)

    result = await run_tool(ReadTool(), file_path=str(path))

    [block] = images_of(result)
    assert size_of(block) == (300, 200)
    assert base64.b64decode(block["source"]["data"]) == data  # the pixels as they were
    assert check_images(conversation_of([result])) is None  # as it came, this one fails


async def test_an_image_cut_short_is_refused_not_sent(run_tool, workspace):
    data = picture((300, 200), noise=True)
    path = workspace.root / "cut.png"
    path.write_bytes(data[: len(data) * 9 // 10])

    with pytest.raises(ToolError, match="could not be decoded"):
        await run_tool(ReadTool(), file_path=str(path))


async def test_a_notebooks_big_figures_are_taken_in_a_long_session(run_tool, workspace):
    notebook = nbformat.v4.new_notebook()
    figure = base64.b64encode(picture((3000, 1000))).decode()
    for n in range(21):
        cell = nbformat.v4.new_code_cell(f"plot({n})", id=f"plot{n}")
        cell.outputs = [nbformat.v4.new_output("display_data", data={"image/png": figure})]
        notebook.cells.append(cell)
    path = workspace.root / "plots.ipynb"
    path.write_text(nbformat.writes(notebook), encoding="utf-8")

    result = await run_tool(ReadTool(), file_path=str(path))

    pictures = images_of(result)
    assert pictures and all(max(size_of(p)) <= 2000 for p in pictures)
    assert check_images(conversation_of([result] * 3)) is None


async def test_a_notebook_figure_that_cannot_be_decoded_is_not_sent(run_tool, workspace):
    notebook = nbformat.v4.new_notebook()
    data = picture((300, 200), noise=True)
    broken = base64.b64encode(data[:60]).decode()  # its header, no pixels
    cell = nbformat.v4.new_code_cell("plot()", id="plot")
    cell.outputs = [nbformat.v4.new_output("display_data", data={"image/png": broken})]
    notebook.cells.append(cell)
    path = workspace.root / "broken.ipynb"
    path.write_text(nbformat.writes(notebook), encoding="utf-8")

    result = await run_tool(ReadTool(), file_path=str(path))

    assert images_of(result) == []
    assert "(image/png picture not shown: it could not be decoded" in texts_of(result)
