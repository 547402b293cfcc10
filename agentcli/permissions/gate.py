"""Where a decision meets a person: the engine asks the gate, the gate may ask the approver.

The approver is injected: the TUI shows a prompt, headless mode refuses
(nobody can answer). An "allow for this session" answer becomes session
rules, so the same kind of call is not asked about again; an "always" answer
also writes them to `<project>/.agentcli/settings.local.json`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from agentcli.config.rules import Rule
from agentcli.permissions.persist import remember_allow_rules
from agentcli.permissions.policy import EXIT_PLAN_MODE, LOCKED, PermissionPolicy, held_if_locked
from agentcli.permissions.suggestions import suggest_rules
from agentcli.permissions.types import (
    Approver,
    Decision,
    PermissionAnswer,
    PermissionMode,
    PermissionRequest,
)
from agentcli.tools.base import Tool

INTERRUPTED_AT_QUESTION = (
    "Interrupted by the user at the permission question: this call did not run and "
    "nothing was changed. Wait for the user's next message."
)


@dataclass(frozen=True, slots=True)
class GateResult:
    allowed: bool
    message: str = ""  # for the model when refused
    interrupt: bool = False  # the person stopped the whole turn at the question
    notice: str | None = None  # for the person: where an "always" rule was saved, or why not
    notice_level: str = "info"


class PermissionGate:
    def __init__(
        self,
        policy: PermissionPolicy,
        approver: Approver,
        *,
        remember: Callable[[list[Rule]], object] | None = None,
        on_wait: Callable[[PermissionRequest], None] | None = None,
    ) -> None:
        self.policy = policy
        self.approver = approver
        # Writes "always" rules to the local settings file (see persist.py).
        self.remember = remember or (
            lambda rules: remember_allow_rules(policy.workspace.root, rules)
        )
        # Told when a person is about to be asked (the Notification hook).
        self.on_wait = on_wait

    def decide(self, tool: Tool, inp: Any) -> Decision:
        return self.policy.decide(tool, inp)

    async def check(
        self,
        tool: Tool,
        inp: Any,
        tool_use_id: str,
        decision: Decision | None = None,
        *,
        preview: Any = None,
    ) -> GateResult:
        # A decision made elsewhere (a PreToolUse hook's "allow") is held too.
        decision = held_if_locked(self.policy, tool.name, decision or self.policy.decide(tool, inp))
        if decision.behavior == "allow":
            return GateResult(True)
        if decision.behavior == "deny":
            return GateResult(
                False, f"Permission to use {tool.name} was denied ({decision.reason})."
            )
        return await self.ask(tool, inp, tool_use_id, decision.reason, preview=preview)

    async def ask(
        self, tool: Tool, inp: Any, tool_use_id: str, reason: str, *, preview: Any = None
    ) -> GateResult:
        """Put the call to the person; apply a "session" or "always" answer."""
        workspace = self.policy.workspace
        rules = [] if tool.name == EXIT_PLAN_MODE else suggest_rules(tool, inp, self.policy)
        request = PermissionRequest(
            tool_name=tool.name,
            tool_use_id=tool_use_id,
            input=inp.model_dump(by_alias=True, exclude_none=True),
            summary=tool.summary(inp, workspace),
            reason=reason,
            subject=tool.permission_subject(inp),
            path=tool.target_path(inp, workspace),
            preview=preview,
            rules=tuple(str(rule) for rule in rules),
        )
        if self.on_wait is not None:
            self.on_wait(request)
        answer = await self.approver(request)
        if answer.interrupt:
            return GateResult(False, INTERRUPTED_AT_QUESTION, interrupt=True)
        if not answer.allow:
            return GateResult(False, refusal_message(tool.name, answer))
        if tool.name == EXIT_PLAN_MODE:  # the plan is approved: leave plan mode
            leave_plan_mode(self.policy, answer)
            return GateResult(True)
        if answer.scope in ("session", "always"):
            for rule in rules:
                self.policy.add_session_rule(rule)
        if answer.scope == "always" and rules:
            return self._save(rules)
        return GateResult(True)

    def _save(self, rules: list[Rule]) -> GateResult:
        """Write "always" rules to the project's local settings; the call is allowed
        (for this session at least) whether or not that works."""
        listed = ", ".join(str(rule) for rule in rules)
        try:
            where = self.remember(rules)
        except Exception as exc:
            problem = f"Could not save {listed} ({exc}); it is allowed for this session only"
            return GateResult(True, notice=problem, notice_level="warning")
        return GateResult(True, notice=f"Saved {listed} to {where}")


def leave_plan_mode(policy: PermissionPolicy, answer: PermissionAnswer) -> None:
    """Approved once: default mode; approved for the session: acceptEdits."""
    if policy.mode is PermissionMode.PLAN:
        once = answer.scope == "once"
        policy.mode = PermissionMode.DEFAULT if once else PermissionMode.ACCEPT_EDITS


def refusal_message(tool_name: str, answer: PermissionAnswer) -> str:
    if tool_name == EXIT_PLAN_MODE:
        text = "The user did not approve the plan yet; stay in plan mode (read only)."
        if answer.feedback:
            return f"{text} The user said: {answer.feedback}"
        return f"{text} Ask the user what to change in the plan."
    text = f"The user denied permission to use {tool_name}; it did not run and nothing was changed."
    if answer.feedback:
        return f"{text} The user said: {answer.feedback}"
    return f"{text} Ask the user how to proceed instead of retrying the same call."


async def headless_approver(request: PermissionRequest) -> PermissionAnswer:
    """Headless runs cannot ask anyone: refuse, and tell the model why."""
    if request.reason.startswith(LOCKED):  # no flag helps: the settings file must be fixed
        how = "This run cannot ask, so no tool can run until then."
    else:
        how = "It can be allowed with --permission-mode acceptEdits (edits) or --allowedTools."
    return PermissionAnswer(
        allow=False,
        feedback=(
            f"This is a non-interactive run, so {request.tool_name} could not be approved "
            f"({request.reason}). {how}"
        ),
    )
