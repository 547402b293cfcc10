"""The hook events of a session, and what their outcomes mean (Claude Code's protocol).

Every hook gets a JSON object on stdin: `session_id`, `transcript_path`, `cwd`,
`permission_mode`, `hook_event_name` and the event's own fields. Then:

- exit 0: stdout may be JSON: `continue: false` (+ `stopReason`) stops the
  agent, `systemMessage` is shown to the person, `decision: "block"` +
  `reason` blocks like exit 2, and `hookSpecificOutput` carries
  `permissionDecision` (allow/deny/ask) + `permissionDecisionReason` and
  `updatedInput` (PreToolUse), `decision` {`behavior`: allow/deny,
  `updatedInput`, `message`, `interrupt`} (PermissionRequest) or
  `additionalContext` (UserPromptSubmit, SessionStart, SubagentStart,
  PreToolUse, PostToolUse, PostToolUseFailure). Plain stdout of
  UserPromptSubmit/SessionStart is context too;
- exit 2: block; stderr goes to the model (PreToolUse: the call is refused;
  PostToolUse/PostToolUseFailure: added to the result; PermissionRequest:
  the call is refused; Stop/SubagentStop: the model continues with it;
  UserPromptSubmit: the prompt is blocked and erased; PreCompact: no
  compaction); for the events that cannot block (Notification,
  SubagentStart, PostCompact, SessionStart, SessionEnd) it is shown to the
  person;
- any other exit, or a timeout: a non-blocking error shown to the person.

The matching hooks of one event run concurrently; their outcomes combine (any
block blocks, deny beats ask beats allow). Beside the settings' commands, a
front end may add functions of its client (callbacks.py: the Agent SDK's
Python hooks); their answers read like a command's JSON output.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentcli.config.hook_events import HookEvent
from agentcli.hooks.callbacks import CallbackHook, run_callback

if TYPE_CHECKING:  # the runner loads with the first hook that runs (config/hook_models too)
    from agentcli.config.hooks import HookTable
    from agentcli.hooks.runner import HookRun

BLOCK_EXIT = 2


@dataclass
class HookOutcome:
    """What the runs of one event add up to."""

    block: str | None = None  # exit 2 / decision "block": the message for the model
    stop: str | None = None  # continue: false: why the agent stops
    notices: list[str] = field(default_factory=list)  # for the person
    context: list[str] = field(default_factory=list)  # additionalContext for the model
    permission: str | None = None  # PreToolUse: allow | deny | ask
    permission_reason: str = ""
    updated_input: dict[str, Any] | None = None
    answer: RequestAnswer | None = None  # PermissionRequest: the question answered


@dataclass(frozen=True, slots=True)
class RequestAnswer:
    """A PermissionRequest hook's `decision`: allow (maybe with a new input) or deny
    (with the message for the model; `interrupt` stops the whole turn)."""

    behavior: str  # "allow" | "deny"
    message: str = ""
    interrupt: bool = False
    updated_input: dict[str, Any] | None = None


_RANK = {"deny": 3, "ask": 2, "allow": 1}


class Hooks:
    """The hooks of one session. `config` may be empty: every method is then a no-op."""

    stop_event = HookEvent.STOP  # what the end of this engine's turn fires

    def __init__(
        self,
        config: HookTable,
        cwd: Path,
        *,
        session_id: str = "",
        transcript_path: str | None = None,
        permission_mode: Callable[[], str] = lambda: "default",
        env: dict[str, str] | None = None,
        callbacks: Sequence[CallbackHook] = (),
    ) -> None:
        self.config = config
        self.callbacks = tuple(callbacks)  # the front end's client's own hooks
        self.cwd = cwd
        self.session_id = session_id
        self.transcript_path = transcript_path
        self.permission_mode = permission_mode
        self.env = env or {}
        self.pending_stop: str | None = None  # continue:false from a tool hook
        self.session_context: list[str] = []  # SessionStart context, sent with the 1st prompt
        self._background: set[asyncio.Task[Any]] = set()

    def begin_session(self, session_id: str, transcript_path: str | None) -> None:
        """The engine went on in a new session (`/clear`): later payloads name it, and
        SessionStart context not sent yet belonged to the old one."""
        self.session_id = session_id
        self.transcript_path = transcript_path
        self.session_context.clear()

    def has(self, event: HookEvent, subject: str | None = None) -> bool:
        return bool(self.config.commands(event, subject) or self._callbacks(event, subject))

    def _callbacks(self, event: HookEvent, subject: str | None) -> list[CallbackHook]:
        return [hook for hook in self.callbacks if hook.applies(event, subject)]

    def has_tool_hook(self, event_name: str, tool_name: str) -> bool:
        return self.has(HookEvent(event_name), tool_name)

    def payload(self, event: HookEvent, fields: dict[str, Any]) -> dict[str, Any]:
        """The JSON a hook of `event` gets: the common fields, then the event's own."""
        return {
            "session_id": self.session_id,
            "transcript_path": self.transcript_path,
            "cwd": str(self.cwd),
            "permission_mode": self.permission_mode(),
            "hook_event_name": event.value,
            **fields,
        }

    async def fire(
        self, event: HookEvent, fields: dict[str, Any], subject: str | None = None
    ) -> HookOutcome:
        """Run the hooks of `event` whose matcher takes `subject` (a tool name, a
        trigger, an agent type...: config/hooks.py) and add their outcomes up."""
        hooks = self.config.commands(event, subject)
        callbacks = self._callbacks(event, subject)
        if not hooks and not callbacks:
            return HookOutcome()
        payload = self.payload(event, fields)
        from agentcli.hooks.runner import run_hook

        runs = await asyncio.gather(
            *(run_hook(h, payload, self.cwd, self.env) for h in hooks),
            *(run_callback(c, payload) for c in callbacks),
        )
        return combine(event, list(runs))

    def fire_in_background(
        self, event: HookEvent, fields: dict[str, Any], subject: str | None = None
    ) -> None:
        """Run the hooks of an event nobody waits for (a notification, a call that was
        interrupted); `drain()` waits for them (SessionEnd does)."""
        if not self.has(event, subject):
            return
        task = asyncio.ensure_future(self.fire(event, fields, subject))
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    # -- the events ------------------------------------------------------------

    async def pre_tool_use(self, tool_name: str, tool_input: Any, tool_use_id: str) -> HookOutcome:
        return await self.fire(
            HookEvent.PRE_TOOL_USE,
            {"tool_name": tool_name, "tool_input": tool_input, "tool_use_id": tool_use_id},
            tool_name,
        )

    async def post_tool_use(
        self,
        tool_name: str,
        tool_input: Any,
        tool_use_id: str,
        tool_response: Any,
        duration_ms: int = 0,
    ) -> HookOutcome:
        return await self.fire(
            HookEvent.POST_TOOL_USE,
            {
                "tool_name": tool_name,
                "tool_input": tool_input,
                "tool_use_id": tool_use_id,
                "tool_response": tool_response,
                "duration_ms": duration_ms,
            },
            tool_name,
        )

    async def permission_request(
        self, tool_name: str, tool_input: Any, suggestions: list[dict[str, Any]]
    ) -> HookOutcome:
        return await self.fire(
            HookEvent.PERMISSION_REQUEST,
            {
                "tool_name": tool_name,
                "tool_input": tool_input,
                "permission_suggestions": suggestions,
            },
            tool_name,
        )

    async def user_prompt_submit(self, prompt: str) -> HookOutcome:
        return await self.fire(HookEvent.USER_PROMPT_SUBMIT, {"prompt": prompt})

    async def stop(self, stop_hook_active: bool, last_assistant_message: str = "") -> HookOutcome:
        return await self.fire(
            HookEvent.STOP,
            {
                "stop_hook_active": stop_hook_active,
                "last_assistant_message": last_assistant_message,
            },
        )

    async def subagent_start(self, agent_id: str, agent_type: str) -> HookOutcome:
        return await self.fire(
            HookEvent.SUBAGENT_START, {"agent_id": agent_id, "agent_type": agent_type}, agent_type
        )

    async def pre_compact(self, trigger: str, custom_instructions: str) -> HookOutcome:
        fields = {"trigger": trigger, "custom_instructions": custom_instructions}
        return await self.fire(HookEvent.PRE_COMPACT, fields, trigger)

    async def post_compact(self, trigger: str, compact_summary: str) -> HookOutcome:
        fields = {"trigger": trigger, "compact_summary": compact_summary}
        return await self.fire(HookEvent.POST_COMPACT, fields, trigger)

    async def session_start(self, source: str = "startup") -> HookOutcome:
        return await self.fire(HookEvent.SESSION_START, {"source": source}, source)

    async def session_end(self, reason: str = "other") -> HookOutcome:
        outcome = await self.fire(HookEvent.SESSION_END, {"reason": reason}, reason)
        await self.drain()
        return outcome

    def notify(self, message: str, notification_type: str = "permission_prompt") -> None:
        """Notification: the agent needs the person (`permission_prompt`: a question
        waits; `idle_prompt`: the prompt has waited a while). Runs in the background;
        what the hook prints changes nothing."""
        self.fire_in_background(
            HookEvent.NOTIFICATION,
            {"message": message, "notification_type": notification_type},
            notification_type,
        )

    async def drain(self) -> None:
        """Wait for background hooks (notifications) to finish."""
        if self._background:
            await asyncio.gather(*list(self._background), return_exceptions=True)

    def take_stop(self) -> str | None:
        reason, self.pending_stop = self.pending_stop, None
        return reason


def combine(event: HookEvent, runs: list[HookRun]) -> HookOutcome:
    outcome = HookOutcome()
    blocks: list[str] = []
    for run in runs:
        if run.error or run.timed_out:
            what = run.error or "timed out and was killed"
            outcome.notices.append(f"{event.value} hook `{run.command}` {what}")
            continue
        if run.exit_code == BLOCK_EXIT:
            blocks.append(run.stderr.strip() or f"blocked by the hook `{run.command}`")
            continue
        if run.exit_code != 0:
            detail = run.stderr.strip() or run.stdout.strip()
            outcome.notices.append(
                f"{event.value} hook `{run.command}` failed (exit {run.exit_code})"
                + (f": {detail}" if detail else "")
            )
            continue
        data = run.json_output()
        if data is None:
            if run.stdout.strip() and event in (
                HookEvent.USER_PROMPT_SUBMIT,
                HookEvent.SESSION_START,
            ):
                outcome.context.append(run.stdout.strip())
            continue
        _apply_json(outcome, data, blocks)
    if blocks:
        outcome.block = "\n".join(blocks)
    return outcome


def _apply_json(outcome: HookOutcome, data: dict[str, Any], blocks: list[str]) -> None:
    if data.get("continue") is False:
        outcome.stop = str(data.get("stopReason") or "a hook stopped the agent")
    message = data.get("systemMessage")
    if isinstance(message, str) and message:
        outcome.notices.append(message)
    if data.get("decision") == "block":
        blocks.append(str(data.get("reason") or "blocked by a hook"))
    specific = data.get("hookSpecificOutput")
    if not isinstance(specific, dict):
        return
    decision = specific.get("permissionDecision")
    if decision in _RANK and _RANK[decision] > _RANK.get(outcome.permission or "", 0):
        outcome.permission = decision
        outcome.permission_reason = str(specific.get("permissionDecisionReason") or "")
    updated = specific.get("updatedInput")
    if isinstance(updated, dict):
        outcome.updated_input = updated
    answer = _request_answer(specific.get("decision"))
    if answer is not None and (outcome.answer is None or answer.behavior == "deny"):
        outcome.answer = answer  # deny beats allow
    context = specific.get("additionalContext")
    if isinstance(context, str) and context:
        outcome.context.append(context)


def _request_answer(decision: Any) -> RequestAnswer | None:
    """A PermissionRequest `decision` object, when it is one that is understood."""
    if not isinstance(decision, dict) or decision.get("behavior") not in ("allow", "deny"):
        return None
    updated = decision.get("updatedInput")
    message = decision.get("message")
    return RequestAnswer(
        behavior=decision["behavior"],
        message=message if isinstance(message, str) else "",
        interrupt=decision.get("interrupt") is True,
        updated_input=updated if isinstance(updated, dict) else None,
    )
