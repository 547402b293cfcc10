"""What a front end is told about each MCP server: plain data, no SDK types.

`ServerStatus` is what `/mcp`, stream-json's `system/init` and the app's
notes show; `PromptInfo` and `ResourceInfo` are what a server offers besides
tools (slash commands, `@server:uri` attachments).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

State = Literal["pending", "connected", "failed", "needs approval", "disabled"]
Transport = Literal["stdio", "http", "sse"]


@dataclass(frozen=True, slots=True)
class ServerStatus:
    name: str
    scope: str  # "user", "project", "local", "command line"
    transport: Transport
    state: State
    error: str | None = None  # why it failed, in one line
    stderr_tail: str = ""  # the last lines a stdio server wrote to stderr
    tools: int = 0
    prompts: int = 0
    resources: int = 0
    server_info: str | None = None  # "name version", as the server calls itself


@dataclass(frozen=True, slots=True)
class PromptArgument:
    name: str
    description: str = ""
    required: bool = False


@dataclass(frozen=True, slots=True)
class PromptInfo:
    server: str
    name: str
    description: str = ""
    arguments: tuple[PromptArgument, ...] = ()


@dataclass(frozen=True, slots=True)
class ResourceInfo:
    server: str
    uri: str
    name: str
    description: str = ""
    mime_type: str | None = None
