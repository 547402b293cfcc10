"""agentcli as an MCP server (`agentcli mcp serve`): server.py, agent_turn.py, main.py."""
