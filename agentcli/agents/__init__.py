"""Subagents: the kinds the `Task` tool can start, the tool, and running one.

A subagent is the same engine on the same provider, permission policy,
workspace, hooks and MCP servers, with its own conversation, system prompt
and tool subset; it answers one task and its final text is the Task call's
result. This package sits between the front ends (which build engines) and
the engine: it drives sub-engines but never builds one itself.
"""
