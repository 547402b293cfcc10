"""The hooks a subagent runs: the session's tool hooks, SubagentStop, and none of the
person's turn hooks.

A subagent's tool calls are the session's tool calls: PreToolUse,
PostToolUse, PostToolUseFailure and PermissionRequest apply to them exactly
as to the main conversation's (a protection hook must not be bypassed by
asking a subagent), the front end's callback hooks (the Agent SDK's)
included. The payload names the main session, as in Claude Code, and adds
`agent_id` and `agent_type`, so a hook can tell which subagent made the call.
UserPromptSubmit belongs to the person's prompts, so a subagent's task
prompt does not fire it. Where the main loop runs Stop, a subagent's runs
SubagentStop (with `agent_id`, `agent_type`, `agent_transcript_path` and
its `last_assistant_message`): a block sends the subagent on with the
reason, as Stop does the main agent. Its own object keeps a `continue:
false` of a subagent's tool hook from stopping the main turn by accident.
SubagentStart runs in the launcher (agents/launcher.py), before the task is
given; its `additionalContext` travels with the task (`session_context`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agentcli.config.hook_events import TOOL_EVENTS, HookEvent
from agentcli.hooks.events import HookOutcome, Hooks

if TYPE_CHECKING:
    from agentcli.permissions.question_models import Asker


class SubagentHooks(Hooks):
    """A parent's hooks as a subagent runs them."""

    stop_event = HookEvent.SUBAGENT_STOP

    def __init__(
        self, parent: Hooks, asker: Asker, agent_transcript_path: str | None = None
    ) -> None:
        super().__init__(
            parent.config,
            parent.cwd,
            session_id=parent.session_id,
            transcript_path=parent.transcript_path,
            permission_mode=parent.permission_mode,
            env=parent.env,
            callbacks=parent.callbacks,
        )
        self.asker = asker
        self.agent_transcript_path = agent_transcript_path

    def payload(self, event: HookEvent, fields: dict[str, Any]) -> dict[str, Any]:
        data = super().payload(event, fields)
        if event in TOOL_EVENTS:
            data.setdefault("agent_id", self.asker.agent_id)
            data.setdefault("agent_type", self.asker.agent_type)
        return data

    async def user_prompt_submit(self, prompt: str) -> HookOutcome:
        return HookOutcome()

    async def stop(self, stop_hook_active: bool, last_assistant_message: str = "") -> HookOutcome:
        return await self.fire(
            HookEvent.SUBAGENT_STOP,
            {
                "stop_hook_active": stop_hook_active,
                "agent_id": self.asker.agent_id,
                "agent_type": self.asker.agent_type,
                "agent_transcript_path": self.agent_transcript_path,
                "last_assistant_message": last_assistant_message,
            },
            self.asker.agent_type,
        )
