"""The MCP servers a client passes in `session/new`, as a `--mcp-config` file.

agentcli already reads extra MCP servers from files given on the command
line (mcp/config/servers.py: expansion, validation, problems); the client's
servers are written to one such file (private, in a private folder) and go
the same way, so nothing about MCP is done twice.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from agentcli.config.private_files import write_private_atomic
from agentcli.frontends.acp.schema import McpServer


def mcp_config_file(servers: list[McpServer]) -> Path | None:
    """A `{"mcpServers": {...}}` file holding `servers`; None when there are none."""
    if not servers:
        return None
    folder = Path(tempfile.mkdtemp(prefix="agentcli-acp-"))  # 0700
    path = folder / "mcp.json"
    specs = {server.name: _spec(server) for server in servers}
    write_private_atomic(path, json.dumps({"mcpServers": specs}))
    return path


def _spec(server: McpServer) -> dict[str, Any]:
    if server.type == "stdio":
        return {
            "command": server.command or "",
            "args": server.args,
            "env": {variable.name: variable.value for variable in server.env},
        }
    return {
        "type": server.type,
        "url": server.url or "",
        "headers": {header.name: header.value for header in server.headers},
    }
