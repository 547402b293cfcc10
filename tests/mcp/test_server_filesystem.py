"""What the model gets from `@modelcontextprotocol/server-filesystem`: each piece once.

The server answers every call with `content` and a `structuredContent` copy
of it (`{"content": ...}`): the file's text twice, an image and then its
base64 inside the copy. The model must see the text once and the image as an
image, never its base64 as text.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

from tests.mcp.everything import filesystem
from tests.mcp.server_app import DOT_PNG
from tests.mcp.support import run_tool, state_of, tool_named

pytestmark = pytest.mark.usefixtures("needs_filesystem")


def sent(content) -> str:
    return json.dumps(content)


@pytest.fixture
async def files(mcp_manager, tmp_path: Path):
    root = tmp_path.resolve()
    manager = mcp_manager(filesystem(root))
    await manager.start()
    await manager.wait_ready()
    assert state_of(manager, "fs").state == "connected", state_of(manager, "fs")
    return manager, root


async def test_a_text_file_reaches_the_model_once(files):
    manager, root = files
    body = "line one: a distinctive sentence\nline two\n"
    (root / "notes.txt").write_text(body)

    result = await run_tool(
        tool_named(manager, "mcp__fs__read_text_file"), {"path": str(root / "notes.txt")}
    )

    assert not result.is_error, result.content
    assert result.content == [{"type": "text", "text": body}]
    assert sent(result.content).count("a distinctive sentence") == 1


async def test_an_image_is_sent_as_an_image_and_never_as_base64_text(files):
    manager, root = files
    (root / "dot.png").write_bytes(base64.b64decode(DOT_PNG))

    result = await run_tool(
        tool_named(manager, "mcp__fs__read_media_file"), {"path": str(root / "dot.png")}
    )

    assert not result.is_error, result.content
    (image,) = result.content
    assert image["type"] == "image" and image["source"]["media_type"] == "image/png"
    assert sent(result.content).count(DOT_PNG) == 1  # in the image block alone


async def test_a_listing_is_sent_once(files):
    manager, root = files
    for name in ("alpha.py", "beta.py"):
        (root / name).write_text("x\n")

    result = await run_tool(tool_named(manager, "mcp__fs__list_directory"), {"path": str(root)})

    assert not result.is_error, result.content
    assert sent(result.content).count("alpha.py") == 1
