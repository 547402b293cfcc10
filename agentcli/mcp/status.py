"""What a front end is told about each MCP server: plain data, no SDK types.

`ServerStatus` is what `/mcp`, stream-json's `system/init` (in the Agent
SDK's words: `sdk_status`) and the app's notes show; `PromptInfo` and `ResourceInfo` are what a server offers besides
tools (slash commands, `@server:uri` attachments).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

State = Literal["pending", "connected", "failed", "needs approval", "disabled"]
Transport = Literal["stdio", "http", "sse", "sdk"]
# The Agent SDK's statuses (its McpServerStatus), for stream-json and the SDK's controls.
SdkStatus = Literal["connected", "failed", "needs-auth", "pending", "disabled"]
_SDK_STATUS: dict[State, SdkStatus] = {
    "pending": "pending",
    "connected": "connected",
    "failed": "failed",
    "needs approval": "disabled",  # not started in this run: the settings do not allow it
    "disabled": "disabled",
}


def sdk_status(state: State) -> SdkStatus:
    """A server's state in the Agent SDK's words: a project server waiting for approval
    is `disabled` (not started, and it will not start in this run)."""
    return _SDK_STATUS[state]


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
