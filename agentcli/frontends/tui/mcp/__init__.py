"""The app's side of MCP: prompt commands, server failures, `@server:uri` resources."""
