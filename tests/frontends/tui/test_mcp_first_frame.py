"""The MCP SDK is slow to import (about a second): nothing before the first frame loads it.

The app module and everything it imports at the top, the command modules loaded
right after the first frame, and the TUI's own MCP modules (the link to the
servers, /mcp, the approval question) import neither `mcp` nor the client's
modules (agentcli/mcp/*, beside the light configuration in agentcli/mcp/config);
only a manager starting its servers does.
"""

from __future__ import annotations

import subprocess
import sys

PROBE = """
import sys
import agentcli.frontends.tui.app
client = (m for m in sys.modules if m.startswith("agentcli.mcp.") and not m.startswith("agentcli.mcp.config"))
before = sorted([m for m in sys.modules if m == "mcp" or m.startswith("mcp.")] + list(client))
from agentcli.commands.registry import load_command_modules
assert load_command_modules() == []
import agentcli.frontends.tui.mcp.link, agentcli.frontends.tui.screens.mcp_servers, agentcli.frontends.tui.screens.mcp_approval
after = sorted(m for m in sys.modules if m == "mcp" or m.startswith("mcp."))
print(before, after)
"""


def test_nothing_mcp_is_imported_before_the_first_frame_nor_by_the_tui():
    done = subprocess.run(
        [sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout.split() == ["[]", "[]"]
