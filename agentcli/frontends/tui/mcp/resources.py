"""`@server:uri` in a prompt attaches that MCP resource, as `@path` attaches a file.

A mention counts as a resource when the part before the first `:` names a
configured MCP server (`@docs:file:///notes.md`); anything else is left to
the file attachments (commands/attachments.py). The resource's contents go to the
model as the blocks the client makes of them (text, or an image), before the
prompt; the prompt itself is sent as typed. A resource that cannot be read
(an unknown URI, a server not connected) is a note saying why, and the
message goes without it. Text past `MAX_CHARS` (per resource) is cut, and the note says so.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import TYPE_CHECKING

from agentcli.commands.attachments import MAX_BYTES, find_mentions

if TYPE_CHECKING:
    from agentcli.core.messages import Block, ResultPart
    from agentcli.mcp.manager import McpManager

MAX_CHARS = MAX_BYTES


def resource_mentions(text: str, servers: Collection[str]) -> list[tuple[str, str]]:
    """The (server, uri) pairs mentioned in `text`, each once, in order."""
    found: list[tuple[str, str]] = []
    for mention in find_mentions(text):
        server, colon, uri = mention.partition(":")
        if colon and uri and server in servers and (server, uri) not in found:
            found.append((server, uri))
    return found


async def attach_resources(text: str, manager: McpManager) -> tuple[list[Block], list[str]]:
    """(content blocks for the resources mentioned, notes for the person)."""
    from agentcli.frontends.tui.mcp.actions import read_resource
    from agentcli.mcp.errors import McpCallError

    blocks: list[Block] = []
    notes: list[str] = []
    for server, uri in resource_mentions(text, manager.configured):
        try:
            contents = await read_resource(manager, server, uri)
        except McpCallError as problem:
            notes.append(f"Could not attach @{server}:{uri}: {problem}")
            continue
        contents, cut = _bounded(contents)
        blocks.extend(contents)
        suffix = f" (first {MAX_CHARS // 1024} KB)" if cut else ""
        notes.append(f"Attached @{server}:{uri}{suffix}")
    return blocks, notes


def _bounded(blocks: list[ResultPart]) -> tuple[list[ResultPart], bool]:
    """The blocks with their text cut to MAX_CHARS in all; whether any was cut."""
    out: list[ResultPart] = []
    left, cut = MAX_CHARS, False
    for block in blocks:
        if block["type"] == "text":
            text = block.get("text")
            if isinstance(text, str) and len(text) > left:
                cut = True
                if not left:
                    continue  # the API takes no empty text block
                block = {**block, "text": text[:left]}
            left -= len(block["text"])
        out.append(block)
    return out, cut
