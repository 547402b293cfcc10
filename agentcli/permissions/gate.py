"""Where a decision meets a person: the engine asks the gate, the gate may ask the approver.

The approver is injected: the TUI shows a prompt, headless mode refuses
(nobody can answer). An "allow for this session" answer becomes a session
rule, so the same kind of call is not asked about again.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from agentcli.permissions.policy import PermissionPolicy
from agentcli.permissions.rules import Rule
from agentcli.permissions.types import (
    Approver,
    Decision,
    PermissionAnswer,
    PermissionRequest,
)
from agentcli.tools.base import Tool


@dataclass(frozen=True, slots=True)
class GateResult:
    allowed: bool
    message: str = ""  # for the model when refused


class PermissionGate:
    def __init__(self, policy: PermissionPolicy, approver: Approver) -> None:
        self.policy = policy
        self.approver = approver

    def decide(self, tool: Tool, inp: Any) -> Decision:
        return self.policy.decide(tool, inp)

    async def check(
        self, tool: Tool, inp: Any, tool_use_id: str, decision: Decision | None = None
    ) -> GateResult:
        decision = decision or self.policy.decide(tool, inp)
        if decision.behavior == "allow":
            return GateResult(True)
        if decision.behavior == "deny":
            return GateResult(
                False, f"Permission to use {tool.name} was denied ({decision.reason})."
            )
        workspace = self.policy.workspace
        request = PermissionRequest(
            tool_name=tool.name,
            tool_use_id=tool_use_id,
            input=inp.model_dump(by_alias=True, exclude_none=True),
            summary=tool.summary(inp, workspace),
            reason=decision.reason,
            subject=tool.permission_subject(inp),
            path=tool.target_path(inp, workspace),
        )
        answer = await self.approver(request)
        if not answer.allow:
            return GateResult(False, refusal_message(tool.name, answer))
        if answer.scope in ("session", "always"):
            self.policy.add_session_rule(session_rule_for(tool, inp))
        return GateResult(True)


def session_rule_for(tool: Tool, inp: Any) -> Rule:
    """The rule "allow for this session" adds: the tool, or for Bash the command's prefix."""
    subject = tool.permission_subject(inp)
    if subject:
        words = subject.strip().split()
        # Two words keep `git diff` apart from `git push`; a flag is not part of the prefix.
        keep = 2 if len(words) > 1 and not words[1].startswith("-") else 1
        prefix = " ".join(words[:keep])
        if prefix:
            return Rule(tool.name, f"{prefix}:*")
    return Rule(tool.name)


def refusal_message(tool_name: str, answer: PermissionAnswer) -> str:
    text = f"The user denied permission to use {tool_name}; it did not run and nothing was changed."
    if answer.feedback:
        return f"{text} The user said: {answer.feedback}"
    return f"{text} Ask the user how to proceed instead of retrying the same call."


async def headless_approver(request: PermissionRequest) -> PermissionAnswer:
    """Headless runs cannot ask anyone: refuse, and tell the model why."""
    return PermissionAnswer(
        allow=False,
        feedback=(
            f"This is a non-interactive run, so {request.tool_name} could not be approved "
            f"({request.reason}). It can be allowed with --permission-mode acceptEdits "
            f"(edits) or --allowedTools."
        ),
    )
