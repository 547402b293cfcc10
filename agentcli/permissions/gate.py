"""Where a decision meets a person: allow, refuse, or the question and what its answer does.

The gate turns a decision into a verdict. Putting a question to the person
is the tool runner's job (engine/orchestration.py; permissions/question.py
says why it travels on the event stream): the gate builds the question
(`question()`) and applies the answer (`apply()`). An "allow for this
session" answer becomes session rules, so the same kind of call is not
asked about again; an "always" answer also writes them to
`<project>/.agentcli/settings.local.json`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Literal

from agentcli.config.rules import Rule
from agentcli.permissions.persist import remember_allow_rules
from agentcli.permissions.policy import (
    ASK_USER_QUESTION,
    EXIT_PLAN_MODE,
    LOCKED,
    PermissionPolicy,
    held_if_locked,
)
from agentcli.permissions.question import PermissionQuestion
from agentcli.permissions.suggestions import suggest_rules
from agentcli.permissions.types import Decision, PermissionMode
from agentcli.tools.base import Tool

if TYPE_CHECKING:
    from agentcli.permissions.question_models import (
        Asker,
        PermissionAnswer,
        PermissionOption,
        PermissionRequest,
    )
    from agentcli.tools.display import ToolDisplay

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
    notice_level: Literal["info", "warning"] = "info"  # a saved rule; one not saved
    updated_input: dict[str, Any] | None = None  # the answer changed the call's input


ALLOWED = GateResult(True)


class PermissionGate:
    def __init__(
        self,
        policy: PermissionPolicy,
        *,
        remember: Callable[[list[Rule]], object] | None = None,
        asker: Asker | None = None,
        ask_lock: asyncio.Lock | None = None,
    ) -> None:
        self.policy = policy
        self.asker = asker  # the subagent whose calls this gate decides; None: the main one
        # Held while a question is open: one at a time, the subagents' (which share
        # their parent's lock) included, since a front end shows one question.
        self.ask_lock = ask_lock or asyncio.Lock()
        # Writes "always" rules to the local settings file (see persist.py).
        self.remember = remember or (
            lambda rules: remember_allow_rules(policy.workspace.root, rules)
        )

    def decide(self, tool: Tool, inp: Any) -> Decision:
        return self.policy.decide(tool, inp)

    def settle(self, tool: Tool, decision: Decision) -> Decision:
        """The decision that holds: while protection is uncertain, an "allow" made
        elsewhere (a PreToolUse hook) is held too and becomes "ask". A question for the
        person (AskUserQuestion) is always asked: an "allow" has no answers to give."""
        if tool.name == ASK_USER_QUESTION and decision.behavior == "allow":
            return Decision("ask", "a question for the user")
        return held_if_locked(self.policy, tool.name, decision)

    def refusal(self, tool: Tool, decision: Decision) -> GateResult:
        """The verdict of a "deny" decision."""
        return GateResult(False, f"Permission to use {tool.name} was denied ({decision.reason}).")

    def question(
        self, tool: Tool, inp: Any, tool_use_id: str, reason: str, preview: ToolDisplay | None
    ) -> PermissionQuestion:
        """What to ask the person about this call, with the answers that mean something."""
        workspace = self.policy.workspace
        plan = tool.name == EXIT_PLAN_MODE
        asking = tool.name == ASK_USER_QUESTION
        rules = [] if plan or asking else suggest_rules(tool, inp, self.policy)
        texts = tuple(str(rule) for rule in rules)
        shown = inp.model_dump(mode="json", by_alias=True, exclude_none=True)
        if asking:  # the person answers; the model's own `answers` are not theirs
            shown.pop("answers", None)
        from agentcli.permissions.question_models import PermissionRequest

        request = PermissionRequest(
            tool_name=tool.name,
            tool_use_id=tool_use_id,
            input=shown,
            title=tool.permission_title or f"Use {tool.name}",
            summary=tool.summary(inp, workspace),
            reason=reason,
            subject=tool.permission_subject(inp),
            path=tool.target_path(inp, workspace),
            preview=preview,
            rules=texts,
            options=plan_options() if plan else rule_options(texts),
            asked_by=self.asker,
        )
        return PermissionQuestion(request, rules)

    def apply(self, question: PermissionQuestion, answer: PermissionAnswer) -> GateResult:
        """What the person's answer does: refuse, stop the turn, or allow (and remember)."""
        name = question.request.tool_name
        if answer.interrupt:
            return GateResult(False, INTERRUPTED_AT_QUESTION, interrupt=True)
        if not answer.allow:
            if answer.scope == "session":  # "no, and don't ask again" (ACP's reject_always)
                for rule in question.rules:
                    self.policy.add_session_deny(rule)
            return GateResult(False, refusal_message(name, answer))
        if name == EXIT_PLAN_MODE:  # the plan is approved: leave plan mode
            leave_plan_mode(self.policy, answer)
            return ALLOWED
        if name == ASK_USER_QUESTION:  # the person's answers, never the model's own
            return GateResult(True, updated_input=person_answers(question, answer))
        rules = list(question.rules)
        if answer.scope in ("session", "always"):
            for rule in rules:
                self.policy.add_session_rule(rule)
        verdict = self._save(rules) if answer.scope == "always" and rules else ALLOWED
        if answer.updated_input is not None:
            return replace(verdict, updated_input=dict(answer.updated_input))
        return verdict

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


def rule_options(rules: tuple[str, ...]) -> tuple[PermissionOption, ...]:
    """Yes once; and, when there are rules to add, yes for the session or the project."""
    from agentcli.permissions.question_models import PermissionOption

    once = PermissionOption(scope="once", label="Yes")
    if not rules:
        return (once,)
    named = ", ".join(f"`{rule}`" for rule in rules)
    return (
        once,
        PermissionOption(
            scope="session", label=f"Yes, and don't ask again for {named} this session"
        ),
        PermissionOption(
            scope="always", label=f"Yes, and don't ask again for {named} in this project"
        ),
    )


def plan_options() -> tuple[PermissionOption, ...]:
    """Approving a plan: once (default mode next), or for the session (acceptEdits)."""
    from agentcli.permissions.question_models import PermissionOption

    return (
        PermissionOption(scope="once", label="Yes"),
        PermissionOption(
            scope="session", label="Yes, and accept edits for the rest of this session"
        ),
    )


def leave_plan_mode(policy: PermissionPolicy, answer: PermissionAnswer) -> None:
    """Approved once: default mode; approved for the session: acceptEdits."""
    if policy.mode is PermissionMode.PLAN:
        once = answer.scope == "once"
        policy.mode = PermissionMode.DEFAULT if once else PermissionMode.ACCEPT_EDITS


def person_answers(question: PermissionQuestion, answer: PermissionAnswer) -> dict[str, Any]:
    """The input an answered AskUserQuestion runs with: the answer's `answers` (the
    person's, a hook's or an SDK program's), or none at all; whatever `answers` the
    model put in its own input are dropped, so they never pass for the person's."""
    asked = {key: value for key, value in question.request.input.items() if key != "answers"}
    given = answer.updated_input.get("answers") if answer.updated_input is not None else None
    if isinstance(given, dict):
        return {**asked, "answers": given}
    return asked


def refusal_message(tool_name: str, answer: PermissionAnswer) -> str:
    if tool_name == EXIT_PLAN_MODE:
        text = "The user did not approve the plan yet; stay in plan mode (read only)."
        if answer.feedback:
            return f"{text} The user said: {answer.feedback}"
        return f"{text} Ask the user what to change in the plan."
    if tool_name == ASK_USER_QUESTION:
        text = "The user declined to answer the questions."
        if answer.feedback:
            return f"{text} The user said: {answer.feedback}"
        return f"{text} Go on with your best judgement, or ask in plain text."
    text = f"The user denied permission to use {tool_name}; it did not run and nothing was changed."
    if answer.feedback:
        return f"{text} The user said: {answer.feedback}"
    return f"{text} Ask the user how to proceed instead of retrying the same call."


def headless_answer(request: PermissionRequest) -> PermissionAnswer:
    """Headless runs cannot ask anyone: refuse, and tell the model why."""
    from agentcli.permissions.question_models import PermissionAnswer

    if request.reason.startswith(LOCKED):  # no flag helps: the settings file must be fixed
        how = "This run cannot ask, so no tool can run until then."
    else:
        how = "It can be allowed with --permission-mode acceptEdits (edits) or --allowedTools."
    who = f", asked by {request.asked_by.label()}," if request.asked_by is not None else ""
    return PermissionAnswer(
        allow=False,
        feedback=(
            f"This is a non-interactive run, so {request.tool_name}{who} could not be approved "
            f"({request.reason}). {how}"
        ),
    )
