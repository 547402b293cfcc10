"""What one MCP server entry may say, as Claude Code's `.mcp.json` says it.

An entry is a local program (`command`, `args`, `env`; `"type": "stdio"` may
be left out) or a remote server (`"type": "http"` for streamable HTTP or
`"sse"`, with `url` and `headers`), or, from the Agent SDK only, an in-process
server of the program that started agentcli (`"type": "sdk"`, its `name`:
frontends/sdk/mcp_bridge.py carries its messages). Keys this version does not use (Claude
Code's `timeout`, `oauth`, ...) are ignored rather than refused, so a team's
existing file works as it is. `parse_spec()` turns one raw entry into a model,
or says in one clause what is wrong with it, naming the key and, when the
file's text is given, its line and column.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from agentcli.config.key_positions import KeyPath, KeyPositions

TRANSPORTS = ("stdio", "http", "sse")  # what a person configures; "sdk" comes from the SDK


class StdioServer(BaseModel):
    """A program agentcli starts and talks to over its stdin and stdout."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    type: Literal["stdio"] = "stdio"
    command: str = Field(min_length=1)
    args: list[str] = Field(default_factory=list)
    env: dict[str, str] = Field(default_factory=dict)


class _RemoteServer(BaseModel):
    model_config = ConfigDict(frozen=True, defer_build=True)

    url: str
    headers: dict[str, str] = Field(default_factory=dict)

    @field_validator("url")
    @classmethod
    def check_url(cls, url: str) -> str:
        """An http(s) address; one still holding a `${VAR}` is checked once expanded."""
        if "${" not in url and not url.startswith(("http://", "https://")):
            raise ValueError("must start with http:// or https://")
        return url


class HttpServer(_RemoteServer):
    """A remote server over streamable HTTP."""

    type: Literal["http"]


class SseServer(_RemoteServer):
    """A remote server over the older HTTP+SSE transport."""

    type: Literal["sse"]


SDK_SERVER = "in-process, in the Agent SDK program that started agentcli"


class SdkServer(BaseModel):
    """A server inside the Agent SDK program that started agentcli (`create_sdk_mcp_server`):
    its JSON-RPC goes over the control protocol as `mcp_message` requests."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    type: Literal["sdk"]
    name: str = ""


ServerSpec = StdioServer | HttpServer | SseServer | SdkServer  # discriminated on "type"

_MODELS: dict[str, type[StdioServer] | type[HttpServer] | type[SseServer] | type[SdkServer]] = {
    "stdio": StdioServer,
    "http": HttpServer,
    "sse": SseServer,
    "sdk": SdkServer,
}


class SpecError(ValueError):
    """What is wrong with one entry, in one clause (without the file or server name)."""


def parse_spec(raw: Any, where: KeyPath = (), positions: KeyPositions | None = None) -> ServerSpec:
    """The model for one raw entry. `where`: the entry's key path in the file (for
    line and column); raises SpecError saying what is wrong."""
    if not isinstance(raw, dict):
        raise SpecError(f"expected an object, found {_kind(raw)}")
    kind = raw.get("type", "stdio")
    if kind not in _MODELS:
        expected = ", ".join(TRANSPORTS[:-1]) + " or " + TRANSPORTS[-1]
        raise SpecError(
            f"unknown transport {kind!r}{_at(positions, (*where, 'type'))} (expected {expected})"
        )
    if kind == "stdio" and "command" not in raw and "url" in raw:
        raise SpecError('has a url but no "type": add "type": "http" (or "sse")')
    try:
        return _MODELS[kind].model_validate(raw)
    except ValidationError as exc:
        raise SpecError(_describe(exc, where, positions)) from exc


def _describe(exc: ValidationError, where: KeyPath, positions: KeyPositions | None) -> str:
    clauses = []
    for error in exc.errors(include_url=False):
        loc = tuple(error["loc"])
        key = ".".join(str(part) for part in loc)
        message = error["msg"].removeprefix("Value error, ")
        if error["type"] == "missing":
            clauses.append(f"{key} is missing")
        else:
            found = f" (found {error.get('input')!r})"
            clauses.append(f"{key}{_at(positions, (*where, *loc))}: {message}{found}")
    return "; ".join(clauses)


def _at(positions: KeyPositions | None, path: KeyPath) -> str:
    position = positions.of(path) if positions is not None else None
    return f" (line {position[0]}, column {position[1]})" if position else ""


def _kind(value: Any) -> str:
    """A JSON value's kind, in JSON's words."""
    names = {dict: "an object", list: "a list", str: "a string", bool: "true/false"}
    if value is None:
        return "null"
    return names.get(type(value), "a number")
