"""The servers of a project's `.mcp.json`, as the trust question lists them.

`.mcp.json` comes with the folder, like the project's settings files: each of
its servers is a program agentcli would run (or an endpoint it would send to)
once the person approves it, and approving needs a trusted folder. So in a
folder not trusted, each server is one more thing trusting would enable, shown
as what would run (`db: run-db --port 5432`, `api: https://mcp.example/mcp`),
beside what the settings files withhold (config/untrusted.py). The settings
the session loads get them from here (wiring/bootstrap.py), so the settings
themselves know nothing of MCP.
"""

from __future__ import annotations

import shlex
from pathlib import Path

from agentcli.config.untrusted import Withheld, shown_in_full
from agentcli.mcp.config.files import PROJECT_FILE, read_server_file
from agentcli.mcp.config.specs import SDK_SERVER, ServerSpec, StdioServer


def project_servers_withheld(project: Path) -> list[Withheld]:
    """The servers of the project's `.mcp.json`, each as what it would run."""
    path = project.resolve() / PROJECT_FILE
    found = read_server_file(path)
    return [
        Withheld("mcpServers", shown_in_full(f"{name}: {_endpoint(spec)}"), _SOURCE, path)
        for name, spec in found.servers.items()
    ]


_SOURCE = "project (.mcp.json)"


def _endpoint(spec: ServerSpec) -> str:
    if isinstance(spec, StdioServer):
        return shlex.join([spec.command, *spec.args])
    if spec.type == "sdk":
        return SDK_SERVER
    return spec.url
