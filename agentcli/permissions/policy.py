"""The permission decision: a pure function of mode, rules and the call.

Order: a deny rule wins everywhere (even in bypassPermissions); then
bypass; then ask rules; then allow rules; then the mode's defaults. Only an
"ask" ever reaches a person (through the approver, see gate.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from agentcli.permissions.rules import EDIT_TOOLS, Rule
from agentcli.permissions.types import Decision, PermissionMode
from agentcli.tools.base import Tool, Workspace


@dataclass
class PermissionPolicy:
    workspace: Workspace
    mode: PermissionMode = PermissionMode.DEFAULT
    allow: list[Rule] = field(default_factory=list)
    ask: list[Rule] = field(default_factory=list)
    deny: list[Rule] = field(default_factory=list)

    def hidden_tools(self) -> set[str]:
        """Tools denied outright: the model is not even shown them."""
        return {rule.tool for rule in self.deny if rule.specifier is None}

    def add_session_rule(self, rule: Rule) -> None:
        if rule not in self.allow:
            self.allow.append(rule)

    def decide(self, tool: Tool, inp: Any) -> Decision:
        name = tool.name
        subject = tool.permission_subject(inp)
        for rule in self.deny:
            if rule.matches(name, subject):
                return Decision("deny", f"denied by the rule {rule}", str(rule))
        if self.mode is PermissionMode.BYPASS:
            return Decision("allow", "bypassPermissions mode")
        for rule in self.ask:
            if rule.matches(name, subject):
                return Decision("ask", f"the rule {rule} asks", str(rule))
        for rule in self.allow:
            if rule.matches(name, subject):
                return Decision("allow", f"allowed by the rule {rule}", str(rule))
        return self._mode_default(tool, inp)

    def _mode_default(self, tool: Tool, inp: Any) -> Decision:
        read_only = tool.is_read_only(inp)
        path = tool.target_path(inp, self.workspace)
        inside = path is None or self.workspace.is_inside(path)
        if self.mode is PermissionMode.PLAN and not read_only:
            return Decision("deny", "plan mode: only read-only tools may run while planning")
        if read_only:
            if inside:
                return Decision("allow", "read-only")
            return Decision("ask", "it reads outside the project folder")
        if tool.name in EDIT_TOOLS:
            if not inside:
                return Decision("ask", "it edits a file outside the project folder")
            if self.mode is PermissionMode.ACCEPT_EDITS:
                return Decision("allow", "acceptEdits mode")
            return Decision("ask", "it changes a file")
        return Decision("ask", f"{tool.name} needs permission")
