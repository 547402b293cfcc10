"""The built-in slash commands. Importing this module registers them.

Each handler gets a CommandContext (host, engine, args, output, error). Those
that run only in the app use its host (commands/host.py): note(),
set_theme(), clear_conversation(), last_answer(), exit(), copy_to_clipboard().
"""

from __future__ import annotations

from agentcli.commands.registry import NOT_READY, REGISTRY, CommandContext, command


@command("help", "Show the commands and keys")
async def help_command(ctx: CommandContext) -> None:
    registry = ctx.registry or REGISTRY
    lines = ["**Commands**", ""]
    for cmd in registry.all():
        hint = f" {cmd.argument_hint}" if cmd.argument_hint else ""
        lines.append(f"- `/{cmd.name}{hint}` — {cmd.description}")
    lines += [
        "",
        "**Keys**",
        "",
        "- `Enter` send · `Shift+Enter` / `Ctrl+J` new line · `Up`/`Down` history",
        "- `Esc` interrupt · `Shift+Tab` cycle permission mode · `Ctrl+C` clear, twice to quit",
        "- `@path` attach a file · `!command` run a shell command",
    ]
    ctx.output("\n".join(lines))


@command(
    "clear", "Start a new conversation (clears the history and the screen)", aliases=("reset",)
)
async def clear_command(ctx: CommandContext) -> None:
    from agentcli.commands.file_commands import reload_in_app
    from agentcli.wiring.composition import start_new_session

    engine = ctx.engine
    if engine is not None and engine.busy:
        ctx.error("A turn is running; press Esc first.")
        return
    notices = await start_new_session(engine, "clear") if engine is not None else []
    app = ctx.app()
    await app.clear_conversation()
    reload_in_app(app)
    for notice in notices:
        app.note(notice, "warning")
    app.refresh_status()


@command(
    "model",
    "Show the models of each provider, or set the model for this session",
    argument_hint="[model]",
)
async def model_command(ctx: CommandContext) -> None:
    if ctx.engine is None:
        ctx.error(NOT_READY)
        return
    from agentcli.commands.model_choice import listing_text, switch_problem

    if not ctx.args:
        ctx.output(await listing_text(ctx.engine))
        return
    model = ctx.args.split()[0]
    problem = await switch_problem(ctx.engine, model)
    if problem:
        ctx.error(problem)
        return
    ctx.engine.config.model = model
    ctx.app().refresh_status()
    ctx.output(f"Model set to `{model}` for this session.")


@command(
    "status",
    "Show the session: version, folder, model, mode, context, settings files",
    frontends=("tui", "print"),
)
async def status_command(ctx: CommandContext) -> None:
    from agentcli import __version__

    engine = ctx.engine
    if engine is None:
        ctx.error(NOT_READY)
        return
    from agentcli.commands import settings_report as report
    from agentcli.engine.windows import context_window

    used = engine.last_request_usage.context_tokens
    window = context_window(engine.config.model, engine.config.models)
    settings = engine.settings
    problem = ctx.host.provider_error if ctx.host is not None else None
    lines = [
        f"- **agentcli** v{__version__}",
        f"- **Session:** `{engine.session_id}`",
        f"- **Folder:** `{engine.workspace.root}`",
        f"- **Model:** `{engine.config.model}`",
        *([f"- **Model connection:** {report.md(problem)}"] if problem else []),
        f"- **Permission mode:** {engine.gate.policy.mode}",
        f"- **Sandbox:** {report.sandbox_state(engine.workspace)}",
        f"- **Context:** {used:,} / {window:,} tokens ({used * 100 // window}%)",
        f"- **Messages:** {len(engine.messages)}",
    ]
    if settings is not None:
        lines += ["- **Settings files:**", *report.settings_files_lines(settings)]
        lines += ["", *report.uncertain_line(settings)]
    ctx.output("\n".join(lines).rstrip())


@command(
    "theme", "Switch the colour theme (remembered)", argument_hint="[dark|light|high-contrast]"
)
async def theme_command(ctx: CommandContext) -> None:
    app = ctx.app()
    names = app.theme_names()
    if not ctx.args:
        current = app.theme_name
        listed = ", ".join(f"**{n}**" if n == current else n for n in names)
        ctx.output(f"Themes: {listed} · `/theme NAME` to switch.")
        return
    problem = app.set_theme(ctx.args.strip())
    if problem:
        ctx.error(problem)
    else:
        ctx.output(f"Theme set to **{ctx.args.strip()}**.")


@command("vim", "Toggle vim keys in the prompt (normal and insert modes)")
async def vim_command(ctx: CommandContext) -> None:
    if ctx.app().toggle_vim():
        ctx.output("Vim keys on: Esc for normal mode, i to type · `/vim` again to turn off.")
    else:
        ctx.output("Vim keys off.")


@command(
    "permissions",
    "Show the permission mode, the rules and where each came from",
    aliases=("allowed-tools",),
    frontends=("tui", "print"),
)
async def permissions_command(ctx: CommandContext) -> None:
    if ctx.engine is None:
        ctx.error(NOT_READY)
        return
    from agentcli.commands import settings_report as report

    policy = ctx.engine.gate.policy
    settings = ctx.engine.settings
    out = [f"**Mode:** {policy.mode} (Shift+Tab cycles)", ""]
    out += [*report.uncertain_line(settings), ""]
    for label, rules in (("Allow", policy.allow), ("Ask", policy.ask), ("Deny", policy.deny)):
        out += [*report.rules_lines(label, rules, settings), ""]
    out += report.problem_lines(settings) if settings is not None else []
    ctx.output("\n".join(out).rstrip())


@command("copy", "Copy the last answer to the clipboard as markdown")
async def copy_command(ctx: CommandContext) -> None:
    app = ctx.app()
    text = app.last_answer()
    if not text:
        ctx.error("There is no answer to copy yet.")
        return
    app.copy_to_clipboard(text)
    ctx.output(f"Copied the last answer ({len(text):,} characters).")


@command("exit", "Quit agentcli", aliases=("quit",))
async def exit_command(ctx: CommandContext) -> None:
    ctx.app().exit()
