"""What a `-p` prompt that starts with a slash is, before anything is sent.

- `/fix-issue 123`, a custom command (a command file): expanded in its
  turn's scope, as the app does (command_run.py).
- `/cost`, a built-in command that runs in -p (its `frontends` has "print":
  /cost, /context, /memory, /status, /permissions, /agents, /compact): run,
  and what it says is the answer (stdout, or the result's `result`); nothing
  goes to the model but what the command itself asks (`/compact`'s summary,
  with `--continue`: stream-json gets its `compact_boundary` line).
- `/clear`, `/theme`, ... any other built-in: refused, saying it works only
  in the app. It would mean nothing here, and sending it to the model as
  text would spend a request on a word the person meant as a command.
- a command whose file could not be used (bad front matter, unreadable):
  refused with the file's problem.
- `/mcp__server__prompt`: refused; MCP prompts run in the app only.
- `/foo` that is none of these, a name of command characters: refused as
  an unknown command (Claude Code prints `Unknown command: /foo` and exits
  0; here it is an error, exit 1, so a script notices). A name that is an
  existing path at the root (`/tmp is full, why?`) is prose.
- anything else (`/usr/bin/env is missing`): the prompt, as written.

Only -p reads a prompt this way: an SDK program's prompts go to the model as
written (docs/sdk.md).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from agentcli.commands.command_line import parse_command_line

if TYPE_CHECKING:  # the registry and the command files load for a prompt that is a command
    from agentcli.commands.command_run import CommandRun
    from agentcli.commands.registry import Command
    from agentcli.engine.events import Event
    from agentcli.engine.query_engine import QueryEngine

_COMMAND_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:-]*")
MCP_PROMPT_PREFIX = "mcp__"


@dataclass(frozen=True)
class Prose:
    """Not a command: the prompt goes to the model as written."""


@dataclass(frozen=True)
class CustomCommand:
    run: CommandRun


@dataclass(frozen=True)
class BuiltinCommand:
    command: Command
    arguments: str


@dataclass(frozen=True)
class Refused:
    """Nothing is sent; `message` says why (for `agentcli: error: ...`)."""

    message: str


HeadlessPrompt = Prose | CustomCommand | BuiltinCommand | Refused


def read_prompt(engine: QueryEngine, prompt: str) -> tuple[HeadlessPrompt, list[str]]:
    """What `prompt` is, and the problems with the command files (for a prompt that is a
    slash command: warnings either way)."""
    parsed = parse_command_line(prompt)
    if parsed is None:
        return Prose(), []
    name, arguments = parsed
    from agentcli.commands.command_files import load_command_files
    from agentcli.commands.registry import REGISTRY, load_command_modules

    load_command_modules()  # the built-ins, which keep their names
    builtin = REGISTRY.get(name)
    found = load_command_files(
        engine.workspace.root, taken=lambda taken: taken in REGISTRY, places=engine.places
    )
    problems = found.problems
    if builtin is not None:
        if builtin.runs_in("print"):
            return BuiltinCommand(builtin, arguments), problems
        return Refused(f"/{name} works only in the interactive app, not with -p"), problems
    command = found.get(name)
    if command is not None:
        from agentcli.commands.command_run import CommandRun

        return CustomCommand(CommandRun(engine, command, arguments)), problems
    unusable = found.unusable.get(name)
    if unusable is not None:  # said here: not again among the warnings
        others = [problem for problem in problems if not problem.startswith(unusable)]
        return Refused(f"/{name} could not be loaded: {unusable}"), others
    if name.startswith(MCP_PROMPT_PREFIX):
        return Refused(f"/{name}: MCP prompts run only in the interactive app"), problems
    if _COMMAND_NAME.fullmatch(name) and not _is_root_path(name):
        return Refused(f"unknown command /{name} (in the app, /help lists them)"), problems
    return Prose(), []


async def run_builtin(
    engine: QueryEngine, builtin: BuiltinCommand, shown: Callable[[Event], None] | None = None
) -> tuple[str, str | None]:
    """Run a headless built-in on `engine`: what it said, and its error (None: none).
    `shown` gets the events the command makes (a `/compact`'s `Compacted`)."""
    from agentcli.commands.registry import REGISTRY, CommandContext

    said: list[str] = []
    failed: list[str] = []
    context = CommandContext(
        host=None,
        engine=engine,
        args=builtin.arguments,
        registry=REGISTRY,
        output=said.append,
        error=failed.append,
    )
    if shown is not None:
        context.event = shown
    try:
        await builtin.command.handler(context)
    except Exception as exc:  # a broken command gets one line, not a traceback
        failed.append(f"/{builtin.command.name} failed: {type(exc).__name__}: {exc}")
    return "\n\n".join(said), "\n".join(failed) or None


def sdk_command(prompt: object) -> BuiltinCommand | None:
    """The built-in an SDK program's prompt runs (`query("/compact focus")`, a command
    whose `frontends` has "sdk"), or None: the prompt goes to the model as written
    (blocks, prose, and every other slash word, as before)."""
    if not isinstance(prompt, str):
        return None
    parsed = parse_command_line(prompt.strip())
    if parsed is None:
        return None
    name, arguments = parsed
    from agentcli.commands.registry import REGISTRY, load_command_modules

    load_command_modules()
    builtin = REGISTRY.get(name)
    if builtin is None or not builtin.runs_in("sdk"):
        return None
    return BuiltinCommand(builtin, arguments)


def _is_root_path(name: str) -> bool:
    """`/tmp` in `/tmp is full`: a path, as Claude Code tells them from commands."""
    try:
        return Path("/", name).exists()
    except (OSError, ValueError):
        return False
