"""The fake API's check of image blocks, as the Messages API makes it.

The real service decodes each base64 image: the media type must be one of the
four it takes and the one the bytes are (not what a file was named), the
base64 text at most 5 MB, each edge at most 8000 px, or 2000 px once the
request holds more than 20 images (tool results' images count too). The
image is read here with Pillow, apart from agentcli's own header reading
(agentcli/core/images.py), so a mistake there is not repeated here.
"""

from __future__ import annotations

import base64
import binascii
import io
from typing import Any

MEDIA_TYPES = ("image/jpeg", "image/png", "image/gif", "image/webp")
MAX_BASE64_CHARS = 5 * 1024 * 1024
MAX_EDGE = 8000
MAX_EDGE_MANY = 2000
MANY_IMAGES = 20
_FORMATS = {"JPEG": "image/jpeg", "PNG": "image/png", "GIF": "image/gif", "WEBP": "image/webp"}


def check_images(messages: list[Any]) -> str | None:
    found = list(_images(messages))
    many = len(found) > MANY_IMAGES
    for where, block in found:
        problem = _check(where, block, many)
        if problem:
            return problem
    return None


def _images(messages: list[Any]) -> Any:
    for i, message in enumerate(messages):
        content = message.get("content")
        if not isinstance(content, list):
            continue
        for j, block in enumerate(content):
            if block.get("type") == "image":
                yield f"messages.{i}.content.{j}.image", block
            elif block.get("type") == "tool_result" and isinstance(block.get("content"), list):
                for k, part in enumerate(block["content"]):
                    if isinstance(part, dict) and part.get("type") == "image":
                        yield f"messages.{i}.content.{j}.tool_result.content.{k}.image", part


def _check(where: str, block: dict[str, Any], many: bool) -> str | None:
    source = block.get("source")
    if not isinstance(source, dict) or source.get("type") not in ("base64", "url"):
        return f"{where}.source: Input tag does not match any of the expected tags: 'base64', 'url'"
    if source["type"] == "url":
        return None if isinstance(source.get("url"), str) else f"{where}.source.url: Field required"
    media_type = source.get("media_type")
    if media_type not in MEDIA_TYPES:
        return (
            f"{where}.source.base64.media_type: Input should be 'image/jpeg', 'image/png', "
            "'image/gif' or 'image/webp'"
        )
    data = source.get("data")
    if not isinstance(data, str):
        return f"{where}.source.base64.data: Field required"
    if len(data) > MAX_BASE64_CHARS:
        return (
            f"{where}.source.base64: image exceeds 5 MB maximum: "
            f"{len(data)} bytes > {MAX_BASE64_CHARS} bytes"
        )
    try:
        raw = base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        return f"{where}.source.base64.data: Invalid base64 data"
    from PIL import Image

    try:
        with Image.open(io.BytesIO(raw)) as image:
            kind, size = _FORMATS.get(image.format or ""), image.size
    except Exception:
        return f"{where}.source.base64.data: Could not process image"
    if kind != media_type:
        return (
            f"{where}.source.base64.data: Image does not match the provided media type {media_type}"
        )
    limit = MAX_EDGE_MANY if many else MAX_EDGE
    if max(size) > limit:
        suffix = " for many-image requests" if many else ""
        return (
            f"{where}.source.base64.data: At least one of the image dimensions exceed max "
            f"allowed size{suffix}: {limit} pixels"
        )
    return None
