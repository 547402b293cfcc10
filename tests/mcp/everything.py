"""The reference server `@modelcontextprotocol/server-everything`, installed by the Makefile.

`make test` installs it with npm into `.mcp-test-servers/` when Node is
here. Without it a test skips, but in CI (AGENTCLI_CI=1, where Node and the
npm registry are there) it fails: a missing reference server must not pass
unseen, as tests/sandbox_support.py does for bubblewrap.
"""

from __future__ import annotations

import os
import shutil

import pytest

from agentcli.config.mcp_servers import ConfiguredServer, StdioServer
from tests.mcp.support import REPO

PACKAGE = (
    REPO / ".mcp-test-servers" / "node_modules" / "@modelcontextprotocol" / "server-everything"
)
ENTRY = PACKAGE / "dist" / "index.js"


def everything_problem() -> str | None:
    if shutil.which("node") is None:
        return "node is not installed"
    if not ENTRY.exists():
        return f"{ENTRY} is missing (run `make mcp-test-servers`)"
    return None


@pytest.fixture
def needs_everything() -> None:
    problem = everything_problem()
    if problem is None:
        return
    if os.environ.get("AGENTCLI_CI"):
        pytest.fail(f"the server-everything tests must run in CI: {problem}")
    pytest.skip(f"no server-everything here: {problem}")


def everything(name: str = "everything") -> ConfiguredServer:
    node = shutil.which("node") or "node"
    spec = StdioServer(command=node, args=[str(ENTRY), "stdio"])
    return ConfiguredServer(name, spec, "user", "test", True)
