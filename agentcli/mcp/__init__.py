"""The MCP client: Model Context Protocol servers' tools, resources and prompts.

A service beside tools/: the engine reads the manager's current tools before
each request, and front ends read its statuses. Importing this package is
cheap; the SDK (`mcp`, slow to import) is loaded by `manager.load_sdk()` off
the UI thread, and only the modules that talk to servers import it.

- manager.py: every configured server, connected in the background, in
  parallel; statuses, reconnect, disable, close (docs/mcp.md: the API).
- connection.py: one server's life: transport, handshake, listings, changes.
- tools.py: a server's tool as an agentcli Tool (`mcp__server__tool`).
- results.py: an MCP tool result as Messages API content blocks.
- resource_tools.py: ListMcpResourcesTool and ReadMcpResourceTool.
- names.py, timeouts.py, stderr_tail.py, status.py: small parts of those.
"""
