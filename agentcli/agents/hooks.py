"""The hooks a subagent runs: the session's tool hooks, and none of the person's turn hooks.

A subagent's tool calls are the session's tool calls: PreToolUse and
PostToolUse apply to them exactly as to the main conversation's (a
protection hook must not be bypassed by asking a subagent), and the payload
names the main session, as in Claude Code. UserPromptSubmit and Stop belong
to the person's prompts and the main turn's end, so a subagent's task prompt
and its last answer do not fire them. Its own object keeps a `continue:
false` of a subagent's tool hook from stopping the main turn by accident.
"""

from __future__ import annotations

from agentcli.hooks.events import HookOutcome, Hooks


class SubagentHooks(Hooks):
    """A parent's hooks as a subagent runs them."""

    @classmethod
    def of(cls, parent: Hooks) -> SubagentHooks:
        return cls(
            parent.config,
            parent.cwd,
            session_id=parent.session_id,
            transcript_path=parent.transcript_path,
            permission_mode=parent.permission_mode,
            env=parent.env,
        )

    async def user_prompt_submit(self, prompt: str) -> HookOutcome:
        return HookOutcome()

    async def stop(self, stop_hook_active: bool) -> HookOutcome:
        return HookOutcome()
