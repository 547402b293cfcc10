"""`/effort [low|medium|high|xhigh|max|auto]`: how hard the model thinks, for the rest
of the session.

Without a level it says the session's level and what the current model gets for
it (adaptive thinking and the level, a thinking budget, the nearest level the
model takes, or nothing for a model that does not think); `auto` clears the level
(the model's own default). The level is the session's, as `/model`: the
`effortLevel` setting is where a lasting one goes. It runs in the app and in an
editor (ACP); a `-p` run takes `--effort` instead.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from agentcli.commands.registry import CommandContext, command
from agentcli.core.model_catalog import claude_thinking, openai_effort, openai_efforts
from agentcli.core.reasoning import EFFORT_LEVELS, Effort, nearest_level, parse_effort
from agentcli.providers.base import api_of

if TYPE_CHECKING:
    from agentcli.engine.query_engine import QueryEngine

NOT_READY = "The session is still starting; try again in a moment."
AUTO = ("auto", "default", "unset")


def what_the_model_gets(engine: QueryEngine, effort: Effort | None) -> str:
    """In words: what `effort` becomes for the session's model."""
    model = engine.config.model
    if effort is None:
        return f"`{model}` thinks as its API decides (no effort is sent)"
    api = api_of(engine.provider, model) if engine.provider is not None else "anthropic"
    catalog = engine.config.models
    claude = catalog.anthropic_name(model) if api == "anthropic" else None
    if claude is not None:
        support = claude_thinking(claude)
        level = nearest_level(effort, support.efforts)
        if support.adaptive:
            return f"`{model}` gets adaptive thinking at effort `{level or effort}`"
        if support.budget:
            extra = f" and effort `{level}`" if level else ""
            return f"`{model}` gets a thinking budget for `{effort}`{extra}"
        return f"`{model}` does not think: nothing is sent for it"
    bare = model.partition("/")[2] or model
    sent = openai_effort(effort, openai_efforts(bare, catalog.spec(model)))
    if sent is None:
        return f"`{model}` takes no reasoning effort: nothing is sent for it"
    return f"`{model}` gets `reasoning_effort: {sent}`"


@command(
    "effort",
    "Show or set how hard the model thinks for this session",
    argument_hint="[low|medium|high|xhigh|max|auto]",
    frontends=("tui", "acp"),
)
async def effort_command(ctx: CommandContext) -> None:
    engine = ctx.engine
    if engine is None:
        ctx.error(NOT_READY)
        return
    reasoning = engine.config.reasoning
    word = ctx.args.split()[0].lower() if ctx.args.split() else ""
    if not word:
        level = f"`{reasoning.effort}`" if reasoning.effort else "auto (the model's own)"
        ctx.output(
            f"Effort: {level}: {what_the_model_gets(engine, reasoning.effort)}. "
            f"`/effort {'|'.join(EFFORT_LEVELS)}` to change it, `/effort auto` to clear it."
        )
        return
    effort = None if word in AUTO else parse_effort(word)
    if effort is None and word not in AUTO:
        ctx.error(
            f"`{word}` is not an effort level: use one of {', '.join(EFFORT_LEVELS)}, or auto."
        )
        return
    engine.config.reasoning = replace(reasoning, effort=effort)
    if ctx.host is not None:
        ctx.host.refresh_status()
    shown = f"`{effort}`" if effort else "auto"
    ctx.output(f"Effort set to {shown} for this session: {what_the_model_gets(engine, effort)}.")
