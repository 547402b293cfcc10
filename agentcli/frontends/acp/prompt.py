"""An ACP prompt (content blocks) as the person's message to the model.

Text stays text. A resource link (a file the person mentioned) becomes a
mention the model can Read: `[@name](uri)`. An embedded resource (context
the editor attached, such as a selection) goes in whole, marked with its
URI. An image goes as an image block, made fit for the API (scaled past its
limits; refused when it cannot be decoded, since the API would refuse it in
every later request too).
"""

from __future__ import annotations

import base64
import binascii

from agentcli.core.images import ImageProblem, fit_image
from agentcli.core.messages import Block, is_image, is_text
from agentcli.frontends.acp.rpc import INVALID_PARAMS, RpcError
from agentcli.frontends.acp.schema import ContentBlock

IMAGE_TYPES = ("image/png", "image/jpeg", "image/gif", "image/webp")


def prompt_blocks(prompt: list[ContentBlock]) -> list[Block]:
    """Messages API blocks for the prompt; RpcError for a block it cannot take."""
    blocks = [_block(item) for item in prompt]
    if not any((is_text(block) and block["text"].strip()) or is_image(block) for block in blocks):
        raise RpcError(INVALID_PARAMS, "the prompt is empty")
    return blocks


def _block(item: ContentBlock) -> Block:
    match item.type:
        case "text":
            return {"type": "text", "text": item.text or ""}
        case "resource_link":
            name = item.name or item.uri or ""
            return {"type": "text", "text": f"[@{name}]({item.uri})"}
        case "resource":
            resource = item.resource or {}
            text = resource.get("text")
            if not isinstance(text, str):
                raise RpcError(INVALID_PARAMS, "only text resources can be embedded")
            uri = resource.get("uri", "")
            return {"type": "text", "text": f'<context ref="{uri}">\n{text}\n</context>'}
        case "image" if item.data and item.mime_type in IMAGE_TYPES:
            return _image(item.data)
    raise RpcError(INVALID_PARAMS, f"unsupported prompt content: {item.type}")


def _image(data: str) -> Block:
    """The editor's image made fit for the API in any conversation (core/images.py):
    scaled past its limits; an error for the client when it cannot be decoded."""
    try:
        fitted = fit_image(base64.b64decode(data, validate=True))
    except (binascii.Error, ValueError):
        raise RpcError(INVALID_PARAMS, "an image's data is not valid base64") from None
    except ImageProblem as problem:
        raise RpcError(INVALID_PARAMS, f"an image cannot be sent: {problem}") from None
    return fitted.block()


def command_line(blocks: list[Block]) -> str | None:
    """The text of a prompt that is one line of text starting with "/", else None."""
    if len(blocks) != 1 or blocks[0]["type"] != "text":
        return None
    text = str(blocks[0]["text"]).strip()
    return text if text.startswith("/") and "\n" not in text else None
