"""An MCP tool's result as the Messages API's tool_result content, faithfully.

| MCP content | what the model gets |
| --- | --- |
| text | a text block |
| image (JPEG, PNG, GIF, WebP) | an image block; another type, or data that is not base64, a note |
| audio | a note (the API takes no audio) |
| embedded resource, text | a text block, `[Resource from <server> at <uri>] ...` |
| embedded resource, image blob | an image block after that line |
| embedded resource, other blob | a note with its type and size |
| resource link | `[Resource link: <name>] <uri> (<description>)` |
| structuredContent | its JSON, only when `content` has nothing to show |
| isError | is_error |

Each piece reaches the model once. `structuredContent` is for programs: the
spec asks a server that returns it to say the same in `content` as well (its
JSON as text, for clients that read only content), and servers do, in their
own forms: server-filesystem's `read_text_file` sends the file as text and
again as `{"content": ...}`, its `read_media_file` an image and again its
base64 inside the structured copy. So `content` is what the model gets, and
`structuredContent` only when `content` is empty. (Claude Code sends
structuredContent in place of content, and models then miss the text that
servers wrote for them.) A text block that only repeats the base64 of an
image or audio block of the same result is left out too.

A note stands where the content was, so the model knows something came back
that it cannot see. Big text goes through the engine's tool-result budget
like any tool's.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Iterable

from mcp_types import (
    AudioContent,
    BlobResourceContents,
    CallToolResult,
    ContentBlock,
    EmbeddedResource,
    ImageContent,
    ResourceLink,
    TextContent,
    TextResourceContents,
)

from agentcli.core.images import ImageProblem, fit_image
from agentcli.core.messages import ResultPart, TextBlock
from agentcli.tools.base import ToolResult
from agentcli.tools.display import McpCallDisplay

API_IMAGE_TYPES = frozenset({"image/jpeg", "image/png", "image/gif", "image/webp"})

# What MCP content becomes: blocks a tool result (or a prompt) can hold.
Block = ResultPart


def tool_result(server: str, tool: str, result: CallToolResult) -> ToolResult:
    """The ToolResult (content, is_error, display) for one call's result."""
    items = _without_repeated_media(result.content)
    blocks = content_blocks(server, items)
    structured = result.structured_content
    if structured is not None and not any(_shows_something(block) for block in blocks):
        blocks.append(_text(json.dumps(structured, ensure_ascii=False)))
    display = McpCallDisplay(
        server=server,
        tool=tool,
        images=sum(block["type"] == "image" for block in blocks),
        resources=sum(isinstance(item, EmbeddedResource | ResourceLink) for item in items),
        structured=structured is not None,
    )
    return ToolResult(blocks, is_error=result.is_error, display=display)


def _shows_something(block: Block) -> bool:
    return block["type"] != "text" or bool(str(block.get("text", "")).strip())


def _without_repeated_media(items: list[ContentBlock]) -> list[ContentBlock]:
    """The items less any text that is only the base64 data of an image or audio item
    among them (some servers send both)."""
    media = {item.data for item in items if isinstance(item, ImageContent | AudioContent)}
    if not media:
        return list(items)
    return [
        item for item in items if not (isinstance(item, TextContent) and item.text.strip() in media)
    ]


def content_blocks(server: str, items: Iterable[ContentBlock]) -> list[Block]:
    """MCP content (a tool result's, a prompt message's) as API content blocks."""
    return [block for item in items for block in _blocks(server, item)]


def _blocks(server: str, item: ContentBlock) -> list[Block]:
    match item:
        case TextContent(text=text):
            return [_text(text)]
        case ImageContent(data=data, mime_type=mime):
            return [_image(data, mime, "image")]
        case AudioContent(data=data, mime_type=mime):
            return [_text(f"[audio ({mime}, {_size(data)}): not shown to the model]")]
        case EmbeddedResource(resource=resource):
            return resource_blocks(server, resource)
        case ResourceLink(name=name, uri=uri, description=description):
            about = f" ({description})" if description else ""
            return [_text(f"[Resource link: {name}] {uri}{about}")]
    kind = getattr(item, "type", type(item).__name__)  # a content type this version does not know
    return [_text(f"[{kind} content: not shown to the model]")]


def resource_blocks(
    server: str, resource: TextResourceContents | BlobResourceContents
) -> list[Block]:
    """A resource's contents as blocks (embedded in a result, or read with a tool)."""
    head = f"[Resource from {server} at {resource.uri}]"
    if isinstance(resource, TextResourceContents):
        return [_text(f"{head} {resource.text}")]
    mime = resource.mime_type or "application/octet-stream"
    if mime in API_IMAGE_TYPES:
        return [_text(head), _image(resource.blob, mime, "resource")]
    return [_text(f"{head} binary {mime}, {_size(resource.blob)}: not shown to the model")]


def _image(data: str, mime: str, what: str) -> Block:
    """An image the server sent, made fit for the API (core/images.py): scaled past its
    limits, and a note instead when it cannot be decoded. A server is not trusted to
    send what the API takes, and an image the API refuses fails every later request."""
    if mime not in API_IMAGE_TYPES:
        return _text(f"[{what} of type {mime}: not shown; the model takes JPEG, PNG, GIF and WebP]")
    try:
        raw = base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        return _text(f"[{what} ({mime}) whose data is not valid base64: not shown]")
    try:
        fitted = fit_image(raw)
    except ImageProblem as problem:
        return _text(f"[{what} ({mime}, {len(raw):,} bytes) not shown: {problem}]")
    if fitted.data is raw and fitted.media_type == mime:  # sent as it came
        return {"type": "image", "source": {"type": "base64", "media_type": mime, "data": data}}
    return fitted.block()


def _text(text: str) -> TextBlock:
    return {"type": "text", "text": text}


def _size(data: str) -> str:
    return f"{len(data) * 3 // 4:,} bytes"
