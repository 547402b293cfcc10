"""An MCP tool's result as the model sees it (mcp/results.py): each piece of content once.

Servers return `structuredContent` beside `content` saying the same thing in
another form (the spec asks them to); the model gets `content`, and the
structured copy only when `content` has nothing to show. Tests through real
servers: test_server_filesystem.py, test_server_everything.py.
"""

from __future__ import annotations

import json

from mcp_types import (
    AudioContent,
    CallToolResult,
    EmbeddedResource,
    ImageContent,
    TextContent,
    TextResourceContents,
)

from agentcli.mcp.results import tool_result
from tests.mcp.server_app import DOT_PNG

WAV = "UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQAAAAA="


def model_sees(result: CallToolResult) -> list[dict]:
    return tool_result("srv", "tool", result).content


def test_text_beside_a_structured_copy_is_sent_once():
    body = "def main():\n    return 1\n"
    result = CallToolResult(content=[TextContent(text=body)], structured_content={"content": body})

    assert model_sees(result) == [{"type": "text", "text": body}]


def test_structured_content_alone_is_sent_as_its_json():
    facts = {"temperature": 21.5, "conditions": "sunny"}
    result = CallToolResult(content=[], structured_content=facts)

    (block,) = model_sees(result)
    assert json.loads(block["text"]) == facts


def test_structured_content_beside_only_blank_text_is_sent():
    result = CallToolResult(content=[TextContent(text="  ")], structured_content={"n": 1})

    assert {"type": "text", "text": '{"n": 1}'} in model_sees(result)


def test_an_image_with_a_structured_copy_is_one_image_and_no_base64_text():
    copy = {"content": [{"type": "image", "data": DOT_PNG, "mimeType": "image/png"}]}
    result = CallToolResult(
        content=[ImageContent(data=DOT_PNG, mime_type="image/png")], structured_content=copy
    )

    seen = model_sees(result)

    assert [block["type"] for block in seen] == ["image"]
    assert json.dumps(seen).count(DOT_PNG) == 1


def test_text_that_repeats_an_images_base64_is_left_out():
    result = CallToolResult(
        content=[
            ImageContent(data=DOT_PNG, mime_type="image/png"),
            TextContent(text=DOT_PNG + "\n"),
            TextContent(text="a red dot"),
        ]
    )

    seen = model_sees(result)

    assert [block["type"] for block in seen] == ["image", "text"]
    assert seen[1]["text"] == "a red dot"


def test_audio_and_an_embedded_resource_are_said_once():
    resource = TextResourceContents(uri="file:///notes.txt", text="Remember the milk.")
    result = CallToolResult(
        content=[
            AudioContent(data=WAV, mime_type="audio/wav"),
            TextContent(text=WAV),
            EmbeddedResource(resource=resource),
        ],
        structured_content={"audio": WAV, "notes": "Remember the milk."},
    )

    seen = json.dumps(model_sees(result))

    assert seen.count(WAV) == 0  # the model takes no audio: a note stands in its place
    assert seen.count("[audio (audio/wav") == 1
    assert seen.count("Remember the milk.") == 1


def _png(size: tuple[int, int]) -> bytes:
    import io

    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", size, (200, 30, 30)).save(out, format="PNG")
    return out.getvalue()


def test_a_servers_big_image_is_scaled_to_what_any_request_takes():
    import base64

    from tests.fakeapi.images import check_images

    data = base64.b64encode(_png((3000, 1200))).decode()
    [block] = model_sees(CallToolResult(content=[ImageContent(data=data, mime_type="image/png")]))

    assert block["type"] == "image"
    many = [{"role": "user", "content": [block] * 21}]
    assert check_images(many) is None


def test_a_servers_image_is_sent_as_what_its_bytes_are():
    import base64

    from tests.fakeapi.images import check_images

    data = base64.b64encode(_png((40, 30))).decode()
    [block] = model_sees(CallToolResult(content=[ImageContent(data=data, mime_type="image/jpeg")]))

    assert block["source"]["media_type"] == "image/png"
    assert check_images([{"role": "user", "content": [block]}]) is None


def test_a_servers_image_that_cannot_be_decoded_is_a_note_not_a_broken_request():
    import base64

    data = _png((300, 200))
    broken = base64.b64encode(data[:60]).decode()
    [block] = model_sees(CallToolResult(content=[ImageContent(data=broken, mime_type="image/png")]))

    assert block["type"] == "text"
    assert "not shown: it could not be decoded" in block["text"]
