"""Session slash commands: /compact, /resume, /rewind, /init, /memory, /context, /cost.

Each command's logic is a plain function of the QueryEngine that returns
markdown (testable without the app); the handlers registered below only call
them and show the text.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentcli.commands.registry import NOT_READY, CommandContext, command
from agentcli.core.pricing import is_estimate, model_price
from agentcli.engine.memory import load_memory, memory_locations
from agentcli.engine.windows import context_usage

if TYPE_CHECKING:
    from agentcli.engine.events import Event


INIT_PROMPT = """\
Please study this project and write an AGENTS.md file at its root: the instructions a \
coding agent (you, in a later session) needs to work here well. Look at the README, the \
build and package files, the layout of the source and test folders, and a few \
representative modules. Include:

- what the project is, in two or three sentences;
- how to install, build, run, lint and test it (exact commands, and how to run one test);
- the architecture: the main modules and how they fit together;
- the code style and conventions that are not obvious from a linter;
- anything surprising a newcomer would get wrong.

Keep it short and concrete (well under 200 lines); do not repeat what any tool can infer. \
If AGENTS.md (or CLAUDE.md) already exists, improve it rather than starting over."""


# -- the logic: engine -> markdown ------------------------------------------------


def cost_text(engine: Any) -> str:
    usage, model = engine.usage, engine.config.model
    price = model_price(model, engine.config.models)
    if price is None or engine.cost_usd is None:
        return _unknown_cost_text(engine)
    rows = [
        ("Input", usage.input_tokens, price.input),
        ("Cache write", usage.cache_creation_input_tokens, price.cache_write),
        ("Cache read", usage.cache_read_input_tokens, price.cache_read),
        ("Output", usage.output_tokens, price.output),
    ]
    lines = [
        f"**Total cost:** ${engine.cost_usd:.4f}"
        + (" (estimated prices)" if is_estimate(model) else ""),
        "",
        "| kind | tokens | $/M tokens | cost |",
        "|---|---:|---:|---:|",
    ]
    for name, tokens, per_million in rows:
        lines.append(
            f"| {name} | {tokens:,} | {per_million:g} | ${tokens * per_million / 1e6:.4f} |"
        )
    inputs = usage.input_tokens + usage.cache_creation_input_tokens + usage.cache_read_input_tokens
    if inputs:
        lines += ["", f"Cache reads: {usage.cache_read_input_tokens / inputs:.0%} of input tokens."]
    lines.append(f"Turns: {engine.turns} · model: `{model}`")
    return "\n".join(lines)


def _unknown_cost_text(engine: Any) -> str:
    usage, model = engine.usage, engine.config.model
    return "\n".join(
        [
            "**Total cost:** unknown",
            "",
            f"No prices are set for `{model}` (or for a model used earlier in this session):"
            " give its provider's `models` entry an `inputPrice` and `outputPrice`"
            " (dollars per million tokens) in the settings.",
            "",
            f"Tokens: {usage.context_tokens:,} input"
            f" ({usage.cache_read_input_tokens:,} read from the cache),"
            f" {usage.output_tokens:,} output · turns: {engine.turns}",
        ]
    )


def context_text(engine: Any) -> str:
    report = context_usage(engine)
    lines = [
        f"**Context:** {report.total:,} of {report.window:,} tokens ({report.fraction:.0%})",
        "",
        "| part | tokens | share |",
        "|---|---:|---:|",
    ]
    for name, tokens in report.parts.items():
        share = tokens / report.window if report.window else 0
        lines.append(f"| {name} | {tokens:,} | {share:.1%} |")
    free = max(report.window - report.total, 0)
    lines.append(f"| free | {free:,} | {free / report.window:.1%} |")
    if report.compact_at is not None:
        lines += ["", f"Auto-compaction at {report.compact_at:,} tokens; `/compact` to do it now."]
    return "\n".join(lines)


def memory_text(engine: Any) -> str:
    project = Path(engine.workspace.root)
    system_text = "\n".join(b.get("text", "") for b in engine.system)
    memory = load_memory(project)
    lines = ["**Memory files**", ""]
    if memory.empty:
        lines.append("None loaded. Looked for:")
        lines += [f"- `{path}`" for path, _ in memory_locations(project)]
        lines += ["", "`/init` asks the model to write an AGENTS.md for this project."]
        return "\n".join(lines)
    for item in memory.files:
        how = "imported" if item.kind == "import" else item.kind
        loaded = f"Contents of {item.path} (" in system_text
        state = "" if loaded else " — added since the memory was read; used after a compaction"
        lines.append(f"- `{item.path}` ({how}, {len(item.content):,} chars){state}")
    for problem in memory.problems:
        lines.append(f"- problem: {problem}")
    return "\n".join(lines)


async def compact_text(
    engine: Any, focus: str = "", shown: Callable[[Event], None] | None = None
) -> tuple[bool, str]:
    """Compact now: (succeeded, what to say). `shown` gets the `Compacted` event of a
    compaction that succeeded, for a front end that shows it as it shows a turn's."""
    outcome = await engine.compact(focus)
    if outcome.ok:  # the report's lines, as paragraphs of the markdown shown
        if shown is not None:
            from agentcli.engine.compaction import Compacted

            shown(Compacted(outcome.message, report=outcome.report))
        return True, outcome.message.replace("\n", "\n\n")
    return False, f"Compaction failed; the conversation is unchanged: {outcome.message}"


# -- the registered commands --------------------------------------------------------


@command(
    "compact",
    "Summarise the conversation to free context",
    argument_hint="[focus]",
    source="session",
    frontends=("tui", "print", "acp", "sdk"),  # -p --continue "/compact", query("/compact")
)
async def compact_command(ctx: CommandContext) -> None:
    if ctx.engine is None:
        ctx.error(NOT_READY)
        return
    ok, text = await compact_text(ctx.engine, ctx.args, ctx.event)
    (ctx.output if ok else ctx.error)(text)


@command(
    "context",
    "Show how full the context window is, by part",
    source="session",
    frontends=("tui", "print", "acp"),
)
async def context_command(ctx: CommandContext) -> None:
    if ctx.engine is None:
        ctx.error(NOT_READY)
        return
    ctx.output(context_text(ctx.engine))


@command(
    "cost",
    "Show the tokens of each kind and the cost of this session",
    source="session",
    frontends=("tui", "print", "acp"),
)
async def cost_command(ctx: CommandContext) -> None:
    if ctx.engine is None:
        ctx.error(NOT_READY)
        return
    ctx.output(cost_text(ctx.engine))


@command(
    "memory",
    "Show the memory files (AGENTS.md, CLAUDE.md) in the context",
    source="session",
    frontends=("tui", "print", "acp"),
)
async def memory_command(ctx: CommandContext) -> None:
    if ctx.engine is None:
        ctx.error(NOT_READY)
        return
    ctx.output(memory_text(ctx.engine))


@command("init", "Study the project and write its AGENTS.md", source="session")
async def init_command(ctx: CommandContext) -> None:
    ctx.app().send(INIT_PROMPT)


@command(
    "resume",
    "Resume an earlier conversation of this folder",
    argument_hint="[id]",
    source="session",
)
async def resume_command(ctx: CommandContext) -> None:
    import asyncio

    from agentcli.session.resume import SessionNotFound, resolve_resumed

    project = Path(ctx.engine.workspace.root) if ctx.engine is not None else Path.cwd()
    if not ctx.args:
        await ctx.app().pick_session()
        return
    try:
        current = ctx.engine.session_id if ctx.engine is not None else None
        loaded = await asyncio.to_thread(
            resolve_resumed, project, resume_id=ctx.args, current_id=current
        )
    except SessionNotFound as exc:
        ctx.error(str(exc))
        return
    if loaded is None:  # only when no id is given, which is handled above
        return
    await ctx.app().resume_session(loaded)


@command(
    "rewind",
    "Restore the code and/or the conversation to before a prompt (also: Esc twice)",
    source="session",
    frontends=("tui", "acp"),  # in an editor it says how to rewind without the app
)
async def rewind_command(ctx: CommandContext) -> None:
    if ctx.host is None:
        ctx.error("/rewind needs the interactive app; headless: agentcli --resume ID --rewind-to")
        return
    ctx.host.open_rewind()
