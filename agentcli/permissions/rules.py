"""Permission rules in Claude Code's syntax: `Tool` or `Tool(specifier)`.

`Bash(npm test:*)` allows any command starting with `npm test` at a word
boundary; `Bash(npm test)` allows exactly that command; a bare `Read` covers
every call of the tool. A command that chains or substitutes other commands
never matches a prefix rule on the strength of its first part.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

EDIT_TOOLS = frozenset({"Edit", "Write", "MultiEdit", "NotebookEdit"})

_RULE = re.compile(r"^\s*([A-Za-z_][\w-]*)\s*(?:\((.*)\))?\s*$", re.DOTALL)
# Anything that lets one command line run more than one command.
_COMPOUND = re.compile(r"[;&|\n`]|\$\(|<\(|>\(")


class RuleSyntaxError(ValueError):
    pass


@dataclass(frozen=True, slots=True)
class Rule:
    tool: str
    specifier: str | None = None
    source: str = "session"

    @classmethod
    def parse(cls, text: str, source: str = "session") -> Rule:
        match = _RULE.match(text)
        if not match:
            raise RuleSyntaxError(f"not a permission rule: {text!r} (expected Tool or Tool(...))")
        tool, spec = match.group(1), match.group(2)
        spec = spec.strip() if spec is not None else None
        return cls(tool, spec or None, source)

    def __str__(self) -> str:
        return self.tool if self.specifier is None else f"{self.tool}({self.specifier})"

    def applies_to(self, tool_name: str) -> bool:
        if self.tool == tool_name:
            return True
        # `Edit(...)` rules speak for every tool that edits files.
        return self.tool == "Edit" and tool_name in EDIT_TOOLS

    def matches(self, tool_name: str, subject: str | None) -> bool:
        if not self.applies_to(tool_name):
            return False
        if self.specifier is None:
            return True
        if subject is None:
            return False
        return matches_command(self.specifier, subject)


def matches_command(specifier: str, command: str) -> bool:
    """Match a Bash rule specifier against a command (prefix with `:*` or exact)."""
    command = command.strip()
    if specifier.endswith(":*"):
        prefix = specifier[:-2].rstrip()
        if _COMPOUND.search(command):
            return False
        return command == prefix or command.startswith(prefix + " ")
    return command == specifier.strip()


def parse_tool_list(values: list[str] | None, source: str) -> list[Rule]:
    """`--allowedTools "Read,Bash(git diff:*)" Edit` -> rules (commas outside parentheses split)."""
    rules: list[Rule] = []
    for value in values or []:
        for part in _split_top_level(value):
            if part.strip():
                rules.append(Rule.parse(part, source))
    return rules


def _split_top_level(text: str) -> list[str]:
    parts, depth, current = [], 0, []
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
