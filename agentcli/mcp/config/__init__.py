"""MCP server configuration: `.mcp.json`, settings, scopes, approval of project servers."""
