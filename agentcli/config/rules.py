"""Permission rules in Claude Code's syntax: `Tool` or `Tool(specifier)`.

Settings files and `--allowedTools` speak this syntax, so it lives with the
settings; the permission layer decides what a rule means for a call.
`Bash(...)` specifiers are commands (see permissions/shell/specifiers.py);
the specifiers of file tools are paths (see permissions/path_rules.py),
relative to `base`, the project root of the settings file the rule came
from. A bare `Read` covers every call of the tool. `Edit(...)` rules speak for every tool that edits files,
and `Read(...)` rules with a path for every tool that reads them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

EDIT_TOOLS = frozenset({"Edit", "Write", "MultiEdit", "NotebookEdit"})
READ_TOOLS = frozenset({"Read", "Grep", "Glob", "NotebookRead"})

_RULE = re.compile(r"^\s*([A-Za-z_][\w-]*)\s*(?:\((.*)\))?\s*$", re.DOTALL)


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
        if self.tool == "Edit" and tool_name in EDIT_TOOLS:
            return True
        # `Read(./.env)` also keeps Grep and Glob out; a bare `Read` is about Read only.
        return self.tool == "Read" and self.specifier is not None and tool_name in READ_TOOLS


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
