"""agentcli: a terminal coding agent.

Kept import-free on purpose: `agentcli --version` must not pay for the SDK.
"""

__version__ = "0.1.0"
