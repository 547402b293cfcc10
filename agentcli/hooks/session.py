"""UserPromptSubmit, SessionStart and SessionEnd, for the QueryEngine and the front ends.

UserPromptSubmit runs before the prompt joins the conversation: a block
(exit 2 or `decision: "block"`) keeps it out and the model is not called;
context a hook prints (or returns as `additionalContext`) travels with the
prompt. Context from SessionStart travels with the first prompt.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from agentcli.core.messages import Block, is_text
from agentcli.hooks.events import Hooks


@dataclass
class PromptVerdict:
    prompt: str | list[Block]
    blocked: str | None = None  # why the prompt was refused (for the person)
    notices: list[str] = field(default_factory=list)


async def check_prompt(hooks: Hooks, prompt: str | list[Block]) -> PromptVerdict:
    text = prompt if isinstance(prompt, str) else _text_of(prompt)
    outcome = await hooks.user_prompt_submit(text)
    verdict = PromptVerdict(prompt, notices=list(outcome.notices))
    if outcome.block is not None or outcome.stop is not None:
        reason = outcome.block or outcome.stop
        verdict.blocked = f"The prompt was blocked by a UserPromptSubmit hook: {reason}"
        return verdict
    context = [*hooks.session_context, *outcome.context]
    hooks.session_context.clear()
    if context:
        blocks: list[Block] = (
            [{"type": "text", "text": prompt}] if isinstance(prompt, str) else list(prompt)
        )
        blocks += [{"type": "text", "text": c} for c in context]
        verdict.prompt = blocks
    return verdict


async def start_session(hooks: Hooks, source: str = "startup") -> list[str]:
    """Run SessionStart; keep its context for the first prompt; return notices."""
    outcome = await hooks.session_start(source)
    hooks.session_context.extend(outcome.context)
    notices = list(outcome.notices)
    if outcome.block:
        notices.append(f"SessionStart hook: {outcome.block}")
    return notices


async def end_session(hooks: Hooks, reason: str = "other") -> list[str]:
    outcome = await hooks.session_end(reason)
    return list(outcome.notices)


def _text_of(blocks: list[Block]) -> str:
    return "\n".join(b.get("text", "") for b in blocks if is_text(b))
