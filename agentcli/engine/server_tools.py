"""Which tools the API runs itself (tools/server_tool.py) a request offers.

Only to a provider that runs them, and only when the permission rules let
them run unasked (permissions/web_rules.py `server_tool_decision`).
"""

from __future__ import annotations

from agentcli.permissions.policy import PermissionPolicy
from agentcli.permissions.web_rules import server_tool_decision
from agentcli.providers.base import Provider, api_of
from agentcli.tools.base import Tool
from agentcli.tools.server_tool import ServerTool


def offered(tool: Tool, provider: Provider | None, model: str, policy: PermissionPolicy) -> bool:
    if not isinstance(tool, ServerTool):
        return True
    if provider is None or not tool.offered_by(api_of(provider, model)):
        return False
    return server_tool_decision(policy, tool.name).behavior == "allow"
