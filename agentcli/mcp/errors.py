"""The one exception the MCP client raises to its callers."""


class McpCallError(Exception):
    """A resource read or a prompt that could not be had, in words for a person or the
    model (no such server, not connected, the server's own error, a timeout)."""
