"""/trust: what this folder's settings would enable, and deciding again whether to trust it.

The answer given at start (or never asked, when the settings enabled
nothing) is not forever: `/trust` lists what the project's settings files
would enable and asks the same question. The new answer is remembered and
applies from the next start in this folder; the running session keeps the
settings it started with, so nothing changes under a conversation.
"""

from __future__ import annotations

import asyncio

from agentcli.commands.registry import CommandContext, command


@command("trust", "Review what this folder's settings would enable, and trust it or not")
async def trust_command(ctx: CommandContext) -> None:
    from agentcli.config.trust_question import remember_trust
    from agentcli.wiring.bootstrap import project_withheld

    app = ctx.app()
    project = app.cwd
    settings = getattr(ctx.engine, "settings", None)
    state = "trusted" if settings is not None and settings.trusted else "not trusted"
    items = await asyncio.to_thread(project_withheld, project)
    if not items:
        ctx.output(
            f"This folder is {state}. Its settings enable nothing that needs trust "
            "(deny and ask rules, a model or a theme apply either way)."
        )
        return

    def answered(trusted: bool) -> None:
        problem = remember_trust(project, trusted, items)
        if problem:
            ctx.error(problem)
            return
        now = "trusted" if trusted else "not trusted"
        ctx.output(f"Remembered: this folder is {now}. It applies from the next start here.")

    app.show_trust_question(items, answered)
