"""`/export [file]`: the conversation as Markdown (commands/export_markdown.py).

With a file (relative to the project folder; `~` is the home folder) it is written
there, folders made as needed, an existing file replaced, as Claude Code's
`/export file` does; the person typed the name, so nothing is asked. Without one,
the app copies it to the clipboard and `-p --continue "/export"` prints it.
"""

from __future__ import annotations

import asyncio
from datetime import datetime
from pathlib import Path

from agentcli.commands.export_markdown import conversation_markdown
from agentcli.commands.registry import NOT_READY, CommandContext, command


@command(
    "export",
    "Export the conversation as Markdown: to a file, or to the clipboard",
    argument_hint="[file]",
    source="session",
    frontends=("tui", "print"),
)
async def export_command(ctx: CommandContext) -> None:
    engine = ctx.engine
    if engine is None:
        ctx.error(NOT_READY)
        return
    messages = list(engine.messages)
    if not messages:
        ctx.error("There is nothing to export yet.")
        return
    stamp = datetime.now().astimezone().strftime("%Y-%m-%d %H:%M")
    text = conversation_markdown(messages, f"agentcli conversation, {stamp}")
    if not ctx.args:
        if ctx.host is None:
            ctx.output(text)
            return
        ctx.host.copy_to_clipboard(text)
        ctx.output(f"Copied the conversation ({len(text):,} characters) to the clipboard.")
        return
    target = Path(ctx.args).expanduser()
    if not target.is_absolute():
        target = engine.workspace.root / target
    problem = await asyncio.to_thread(_write, target, text)
    if problem is not None:
        ctx.error(problem)
        return
    ctx.output(f"Exported {len(messages):,} messages to {target}.")


def _write(target: Path, text: str) -> str | None:
    """Write `text` to `target`; the problem in words, or None."""
    if target.is_dir():
        return f"{target} is a folder; give a file name (/export notes.md)"
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8", errors="replace")
    except OSError as exc:
        return f"Could not write {target}: {exc.strerror or exc}"
    return None
