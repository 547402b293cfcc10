"""`initialize`: what agentcli can do, and what the client says it can.

Kept apart from the sessions (agent.py) and light to import, so the client's
first request is answered while the engine's modules are still loading.
"""

from __future__ import annotations

from typing import Any

from agentcli import __version__
from agentcli.frontends.acp.schema import PROTOCOL_VERSION, ClientCapabilities, InitializeParams


def initialize(params: Any) -> tuple[ClientCapabilities, dict[str, Any]]:
    """The client's capabilities, and the answer to its `initialize`."""
    request = InitializeParams.model_validate(params)
    answer = {
        "protocolVersion": min(request.protocol_version, PROTOCOL_VERSION),
        "agentCapabilities": {
            "loadSession": True,
            "promptCapabilities": {"image": True, "audio": False, "embeddedContext": True},
            "mcpCapabilities": {"http": True, "sse": True},
        },
        "agentInfo": {"name": "agentcli", "title": "agentcli", "version": __version__},
        "authMethods": [],
    }
    return request.client_capabilities, answer
