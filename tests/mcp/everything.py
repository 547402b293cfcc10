"""The MCP project's reference servers, installed by the Makefile.

`@modelcontextprotocol/server-everything` (one of each thing the protocol has)
and `@modelcontextprotocol/server-filesystem` (what people run to let a model
read files). `make test` installs them with npm into `.mcp-test-servers/` when
Node is here. Without them a test skips, but in CI (AGENTCLI_CI=1, where Node
and the npm registry are there) it fails: a missing reference server must not
pass unseen, as tests/sandbox_support.py does for bubblewrap.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from agentcli.mcp.config.servers import ConfiguredServer
from agentcli.mcp.config.specs import StdioServer
from tests.ci_required import require
from tests.mcp.support import REPO

PACKAGES = REPO / ".mcp-test-servers" / "node_modules" / "@modelcontextprotocol"
ENTRY = PACKAGES / "server-everything" / "dist" / "index.js"
FILESYSTEM_ENTRY = PACKAGES / "server-filesystem" / "dist" / "index.js"


def server_problem(entry: Path) -> str | None:
    if shutil.which("node") is None:
        return "node is not installed"
    if not entry.exists():
        return f"{entry} is missing (run `make mcp-test-servers`)"
    return None


def _needs(package: str, entry: Path) -> None:
    require(server_problem(entry), f"the {package} tests", f"no {package}")


@pytest.fixture
def needs_everything() -> None:
    _needs("server-everything", ENTRY)


@pytest.fixture
def needs_filesystem() -> None:
    _needs("server-filesystem", FILESYSTEM_ENTRY)


def everything(name: str = "everything") -> ConfiguredServer:
    node = shutil.which("node") or "node"
    spec = StdioServer(command=node, args=[str(ENTRY), "stdio"])
    return ConfiguredServer(name, spec, "user", "test", True)


def filesystem(root: Path, name: str = "fs") -> ConfiguredServer:
    """server-filesystem, allowed to read and write under `root`."""
    node = shutil.which("node") or "node"
    spec = StdioServer(command=node, args=[str(FILESYSTEM_ENTRY), str(root)])
    return ConfiguredServer(name, spec, "user", "test", True)
