"""Custom commands from files as slash commands, in every front end.

They join the command registry (commands/registry.py), so completion,
`/help` and any front end that lists the registry show them with their
description and argument hint. A built-in command keeps its name: a file
that uses one is reported and skipped. The app reads the files at start and
again on `/clear`.

In the app, running one sends `/name args` as the person's message; its
content is made when the turn starts (commands/outgoing.py), inside the command's
turn scope (allowed tools, model), so a `!` command's permission question
comes in the turn, Esc stops it, and one queued behind a turn keeps its
place. In `-p`, a prompt that is a custom command is expanded the same way
(commands/headless_prompt.py), with the headless answer to any question.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentcli.commands.command_files import CommandFile, load_command_files
from agentcli.commands.registry import (
    Command,
    CommandContext,
    CommandRegistry,
)
from agentcli.plugins.places import EVERYWHERE, Places

if TYPE_CHECKING:
    # Running a command pulls in the permission and tool modules: loaded when one runs,
    # not with the app (its first frame) nor with every -p.
    from agentcli.commands.command_run import CommandRun
    from agentcli.commands.expansion import Blocks
    from agentcli.commands.host import CommandHost
    from agentcli.permissions.question import PermissionQuestion
    from agentcli.permissions.question_models import PermissionAnswer


class FileCommands:
    """Keeps a registry's commands from files equal to the files (`load()` again to refresh)."""

    def __init__(self, registry: CommandRegistry) -> None:
        self.registry = registry
        self._registered: list[str] = []
        # Where the files are read from: every folder until the session's engine says
        # which (its setting sources and plugins: `follow()`).
        self.places = EVERYWHERE
        self._problems: list[str] = []  # the last load's

    def load(self, root: Path, places: Places | None = None) -> list[str]:
        """Register the commands found for project `root` (in `places`, from now on, if
        given); returns the problems."""
        if places is not None:
            self.places = places
        self.clear()
        found = load_command_files(
            root, taken=lambda name: name in self.registry, places=self.places
        )
        for command in found.commands:
            self.registry.register(app_command(command))
            self._registered.append(command.name)
        self._problems = found.problems
        return found.problems

    def follow(self, places: Places, root: Path) -> list[str]:
        """Read the files again from the session's `places` (its plugins' commands join);
        the problems, when the places changed what is read."""
        if places == self.places:
            return []
        self.places = places
        said = set(self._problems)
        return [problem for problem in self.load(root) if problem not in said]

    def clear(self) -> None:
        for name in self._registered:
            self.registry.unregister(name)
        self._registered = []


def reload_in_app(app: CommandHost) -> None:
    """Read the app's command files again (`/clear`, as Claude Code does): a file added
    since becomes a command, a removed one goes, a bad one is reported as at start.
    Completion lists the registry, so it follows."""
    for problem in app.file_commands.load(app.cwd):
        app.note(f"Custom command: {problem}", "warning")


def app_command(command: CommandFile) -> Command:
    return Command(
        name=command.name,
        description=command.shown_description,
        handler=partial(_run_in_app, command),
        argument_hint=command.argument_hint,
        source=command.scope,
    )


async def _run_in_app(command: CommandFile, ctx: CommandContext) -> None:
    app = ctx.app()
    runs: list[CommandRun] = []  # made when the turn starts: the engine is built by then

    def turn() -> Any:
        from agentcli.commands.command_run import CommandRun

        runs.append(CommandRun(app.built_engine(), command, ctx.args))
        return runs[0].turn()

    make = partial(_content_in_app, app, runs)
    app.send(f"/{command.name} {ctx.args}".rstrip(), make=make, scope=turn)


async def _content_in_app(app: CommandHost, runs: list[CommandRun]) -> Blocks:
    from agentcli.commands.expansion import ExpansionError
    from agentcli.commands.outgoing import NotSent

    async def ask(question: PermissionQuestion) -> PermissionAnswer:
        app.ask_permission(question)
        return await question.reply()

    try:
        expansion = await runs[0].content(ask)
    except ExpansionError as problem:
        raise NotSent(str(problem)) from None
    for note in expansion.notes:
        app.note(note, "attachment")
    return expansion.blocks
