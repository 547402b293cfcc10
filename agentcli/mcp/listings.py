"""What a server offers (tools, prompts, resources), fetched page by page.

The SDK's models become agentcli's plain ones here (tools.ToolSpec,
status.PromptInfo, status.ResourceInfo), so nothing past the connection
holds an SDK type. A server that lists more pages than MAX_PAGES is read up
to there: a cursor that never ends must not hang start-up.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TypeVar

from mcp import Client
from mcp_types import Prompt, Resource, Tool

from agentcli.mcp.status import PromptArgument, PromptInfo, ResourceInfo
from agentcli.mcp.tools import ToolSpec

MAX_PAGES = 100

T = TypeVar("T")


async def list_tools(client: Client) -> list[ToolSpec]:
    async def page(cursor: str | None) -> tuple[list[Tool], str | None]:
        result = await client.list_tools(cursor=cursor)
        return result.tools, result.next_cursor

    return [tool_spec(tool) for tool in await _all_pages(page)]


async def list_prompts(client: Client, server: str) -> list[PromptInfo]:
    async def page(cursor: str | None) -> tuple[list[Prompt], str | None]:
        result = await client.list_prompts(cursor=cursor)
        return result.prompts, result.next_cursor

    return [prompt_info(server, prompt) for prompt in await _all_pages(page)]


async def list_resources(client: Client, server: str) -> list[ResourceInfo]:
    async def page(cursor: str | None) -> tuple[list[Resource], str | None]:
        result = await client.list_resources(cursor=cursor)
        return result.resources, result.next_cursor

    return [resource_info(server, resource) for resource in await _all_pages(page)]


async def _all_pages(
    page: Callable[[str | None], Awaitable[tuple[list[T], str | None]]],
) -> list[T]:
    items: list[T] = []
    cursor: str | None = None
    for _ in range(MAX_PAGES):
        found, cursor = await page(cursor)
        items.extend(found)
        if not cursor:
            break
    return items


def tool_spec(tool: Tool) -> ToolSpec:
    annotations = tool.annotations
    return ToolSpec(
        name=tool.name,
        description=tool.description or "",
        input_schema=tool.input_schema,
        read_only=bool(annotations and annotations.read_only_hint),
        title=tool.title or (annotations.title if annotations else None),
    )


def prompt_info(server: str, prompt: Prompt) -> PromptInfo:
    arguments = tuple(
        PromptArgument(arg.name, arg.description or "", bool(arg.required))
        for arg in prompt.arguments or []
    )
    return PromptInfo(server, prompt.name, prompt.description or "", arguments)


def resource_info(server: str, resource: Resource) -> ResourceInfo:
    return ResourceInfo(
        server, resource.uri, resource.name, resource.description or "", resource.mime_type
    )
