"""Permission rules in Claude Code's syntax: `Tool` or `Tool(specifier)`.

Settings files and `--allowedTools` speak this syntax, so it lives with the
settings; the permission layer decides what a rule means for a call.
`Bash(...)` specifiers are commands (see permissions/shell/specifiers.py);
the specifiers of file tools are paths (see config/path_rules.py),
relative to `base`, the project root of the settings file the rule came
from. A bare `Read` covers every call of the tool. `Edit(...)` rules speak for every tool that edits files,
and `Read(...)` rules with a path for every tool that reads them.

MCP tools are named `mcp__<server>__<tool>` (agentcli/mcp/names.py builds the names). As in
Claude Code, `mcp__server` and `mcp__server__*` speak for every tool of that
server, `mcp__server__tool` for one; `*` is taken nowhere else. The server is
what comes before the first `__` after `mcp__`, in a rule as in a tool's
name: mcp/config/names.py refuses the server names for which that would not
be exact (`a__b`, `a_`, two that read the same), so a rule and a call always
agree on the server.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

EDIT_TOOLS = frozenset({"Edit", "Write", "MultiEdit", "NotebookEdit"})
READ_TOOLS = frozenset({"Read", "Grep", "Glob", "NotebookRead"})
# How an MCP tool is named, `mcp__<server>__<tool>`: the rule syntax's, which
# mcp/config/names.py (the server names that keep it exact) and mcp/names.py share.
MCP_PREFIX = "mcp__"
MCP_SEPARATOR = "__"
_SERVER = re.compile(r"[\w-]+")

_RULE = re.compile(r"^\s*([A-Za-z_][\w-]*(?:__\*)?)\s*(?:\((.*)\))?\s*$", re.DOTALL)


def is_mcp_tool(tool_name: str) -> bool:
    """A tool of an MCP server (`mcp__server__tool`)."""
    return tool_name.startswith(MCP_PREFIX)


def mcp_server_of(tool_name: str) -> str | None:
    """The server part of `mcp__server__tool` (or of a rule's `mcp__server`)."""
    if not is_mcp_tool(tool_name):
        return None
    server = tool_name[len(MCP_PREFIX) :].split(MCP_SEPARATOR, 1)[0]
    return server if _SERVER.fullmatch(server) else None


class RuleSyntaxError(ValueError):
    pass


@dataclass(frozen=True, slots=True)
class Rule:
    tool: str
    specifier: str | None = None
    source: str = field(default="session", compare=False)
    base: Path | None = field(default=None, compare=False)  # root for relative paths

    @classmethod
    def parse(cls, text: str, source: str = "session", base: Path | None = None) -> Rule:
        match = _RULE.match(text)
        if not match:
            raise RuleSyntaxError(f"not a permission rule: {text!r} (expected Tool or Tool(...))")
        tool, spec = match.group(1), match.group(2)
        if tool.endswith("*") and not _whole_server(tool):
            raise RuleSyntaxError(
                f"not a permission rule: {text!r} (`*` only in mcp__server__*, "
                "and a server's name holds no `__`)"
            )
        spec = spec.strip() if spec is not None else None
        if spec in ("*", "**"):  # `Bash(*)` means the whole tool
            spec = None
        return cls(tool, spec or None, source, base)

    def __str__(self) -> str:
        return self.tool if self.specifier is None else f"{self.tool}({self.specifier})"

    def applies_to(self, tool_name: str) -> bool:
        """Does this rule speak about `tool_name` at all?"""
        if self.tool == tool_name:
            return True
        if self.names_whole_server():
            return mcp_server_of(tool_name) == mcp_server_of(self.tool)
        if self.tool == "Edit" and tool_name in EDIT_TOOLS:
            return True
        # `Read(./.env)` also keeps Grep and Glob out; a bare `Read` is about Read only.
        return self.tool == "Read" and self.specifier is not None and tool_name in READ_TOOLS

    def names_whole_server(self) -> bool:
        """`mcp__server` or `mcp__server__*`: every tool of one MCP server."""
        return _whole_server(self.tool)


def _whole_server(tool: str) -> bool:
    server = mcp_server_of(tool)
    return server is not None and tool in (f"{MCP_PREFIX}{server}", f"{MCP_PREFIX}{server}__*")


def parse_tool_list(values: list[str] | None, source: str, base: Path | None = None) -> list[Rule]:
    """`--allowedTools "Read,Bash(git diff:*)" Edit` -> rules (commas outside parentheses split)."""
    rules: list[Rule] = []
    for value in values or []:
        for part in _split_top_level(value):
            if part.strip():
                rules.append(Rule.parse(part, source, base))
    return rules


def _split_top_level(text: str) -> list[str]:
    parts: list[str] = []
    current: list[str] = []
    depth = 0
    for char in text:
        if char == "(":
            depth += 1
        elif char == ")":
            depth = max(0, depth - 1)
        if depth == 0 and (char == "," or char.isspace()):
            parts.append("".join(current))
            current = []
            continue
        current.append(char)
    parts.append("".join(current))
    return parts
