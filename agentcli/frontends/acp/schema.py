"""The part of the ACP schema agentcli reads: the params of the client's requests.

Field names are the protocol's camelCase; unknown fields (`_meta`, newer
additions) are ignored, as the protocol asks of both sides. What agentcli
sends is built as plain dicts where it is made (updates.py, permission.py),
in the protocol's shapes, and checked against the real library in the tests.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

PROTOCOL_VERSION = 1


class Params(BaseModel):
    model_config = ConfigDict(
        alias_generator=to_camel, populate_by_name=True, extra="ignore", defer_build=True
    )


class FileSystemCapability(Params):
    read_text_file: bool = False
    write_text_file: bool = False


class ClientCapabilities(Params):
    fs: FileSystemCapability = Field(default_factory=FileSystemCapability)
    terminal: bool = False


class InitializeParams(Params):
    protocol_version: int
    client_capabilities: ClientCapabilities = Field(default_factory=ClientCapabilities)


class EnvVariable(Params):
    name: str
    value: str


class HttpHeader(Params):
    name: str
    value: str


class McpServer(Params):
    """A stdio server (command, args, env) or, with `type` "http"/"sse", a remote one."""

    name: str
    type: Literal["stdio", "http", "sse"] = "stdio"
    command: str | None = None
    args: list[str] = Field(default_factory=list)
    env: list[EnvVariable] = Field(default_factory=list)
    url: str | None = None
    headers: list[HttpHeader] = Field(default_factory=list)


class NewSessionParams(Params):
    cwd: str
    mcp_servers: list[McpServer] | None = None
    additional_directories: list[str] | None = None


class LoadSessionParams(NewSessionParams):
    session_id: str


class ContentBlock(Params):
    """A prompt block: text, a resource link (uri), an embedded resource, an image."""

    type: str
    text: str | None = None
    uri: str | None = None
    name: str | None = None
    resource: dict[str, Any] | None = None
    data: str | None = None
    mime_type: str | None = None


class PromptParams(Params):
    session_id: str
    prompt: list[ContentBlock]


class SessionParams(Params):
    session_id: str


class SetModeParams(Params):
    session_id: str
    mode_id: str


class PermissionOutcome(Params):
    outcome: Literal["selected", "cancelled"]
    option_id: str | None = None


class PermissionResponse(Params):
    outcome: PermissionOutcome


class TerminalExitStatus(Params):
    exit_code: int | None = None
    signal: str | None = None


class TerminalOutput(Params):
    output: str
    truncated: bool = False
    exit_status: TerminalExitStatus | None = None
