"""`${VAR}` and `${VAR:-default}` in MCP server entries, as Claude Code expands them.

A shared `.mcp.json` names secrets and machine-specific paths by variable
(`"Authorization": "Bearer ${GITHUB_TOKEN}"`), so each person's environment
fills them in. They expand in the command, args, env values, url and header
values, nowhere else. `${VAR:-default}` takes the default when VAR is unset
or empty, as a shell does. A variable that is unset with no default is not
replaced by an empty string (a server started with half its configuration
fails in confusing ways): `expand_spec()` raises MissingVariables naming
every one, and the caller leaves that server out.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agentcli.mcp.config.specs import ServerSpec


_VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")


class MissingVariables(ValueError):
    """Variables an entry uses that are not set and have no default."""

    def __init__(self, names: list[str]) -> None:
        self.names = names
        listed = ", ".join(names)
        plural = "s" if len(names) > 1 else ""
        super().__init__(
            f"environment variable{plural} {listed} not set "
            f"(set it, or write ${{{names[0]}:-default}} for a default)"
        )


def expand_spec(spec: ServerSpec, environ: Mapping[str, str]) -> ServerSpec:
    """`spec` with its variables filled in from `environ`; raises MissingVariables,
    or ValueError when an expanded url is not an http(s) address."""
    from agentcli.mcp.config.specs import HttpServer, SdkServer, SseServer, StdioServer

    missing: list[str] = []

    def text(value: str) -> str:
        return _expand(value, environ, missing)

    def values(mapping: dict[str, str]) -> dict[str, str]:
        return {key: text(value) for key, value in mapping.items()}

    expanded: ServerSpec
    match spec:
        case StdioServer():
            expanded = spec.model_copy(
                update={
                    "command": text(spec.command),
                    "args": [text(arg) for arg in spec.args],
                    "env": values(spec.env),
                }
            )
        case HttpServer() | SseServer():
            url = text(spec.url)
            expanded = spec.model_copy(update={"url": url, "headers": values(spec.headers)})
        case SdkServer():
            expanded = spec  # nothing in it runs or is fetched
    if missing:
        raise MissingVariables(sorted(set(missing), key=missing.index))
    if isinstance(expanded, HttpServer | SseServer) and not expanded.url.startswith(
        ("http://", "https://")
    ):
        raise ValueError(f"url {expanded.url!r} (expanded) must start with http:// or https://")
    return expanded


def _expand(value: str, environ: Mapping[str, str], missing: list[str]) -> str:
    def replace(match: re.Match[str]) -> str:
        name, default = match.group(1), match.group(2)
        found = environ.get(name)
        if default is not None:
            return found or default
        if found is None:
            missing.append(name)
            return ""
        return found

    return _VARIABLE.sub(replace, value)
