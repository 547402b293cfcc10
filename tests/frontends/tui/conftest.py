"""Fixtures for the UI tests: `mcp_manager` makes real MCP managers (tests/mcp/conftest.py)."""

from __future__ import annotations

from tests.mcp.conftest import mcp_manager  # noqa: F401  (re-exported fixture)
