"""`agentcli --acp`: agentcli as an Agent Client Protocol agent for editors (docs/acp.md).

Editors (Zed, and others) start the agent and drive it over JSON-RPC on
stdio. This front end is a consumer of the engine's events like the TUI and
`-p`: rpc.py is the wire, agent.py the client's requests, session.py a
turn, updates.py and permission.py the translation of events and questions,
client_io.py the client's files and terminals behind the tools' seams.
"""
