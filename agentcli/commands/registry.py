"""The slash-command registry: one record per command, looked up by name.

A command is data (name, description, argument hint) plus an async handler,
so `/help` and the completion popup are generated from the registry and a
later module can add commands without touching the app. The registry is open:

    from agentcli.commands.registry import Command, CommandContext, command

    @command("compact", "Summarise the conversation to free context", argument_hint="[focus]")
    async def compact(ctx: CommandContext) -> None:
        ctx.output("compacted")

A module that defines commands only has to be imported: `command(...)`
registers into the process-wide `REGISTRY`. The app imports
`agentcli.commands.builtin` and, when it exists,
`agentcli.commands.session_commands` at start-up (see `load_command_modules`).

The handler receives a `CommandContext`: in the interactive app its host
(a `CommandHost`, commands/host.py: a Protocol, so this package never imports
the app), the engine (or None while the provider loads), the argument text
after the command name, and where to write what it says. Each command
declares the front ends it runs in (`frontends`, commands/host.py); a front
end runs and lists only those, so `/help`, an editor's command list and `-p`
agree. Handlers must not block: anything slow goes to
`await asyncio.to_thread(...)` or a worker.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from agentcli.commands.command_line import parse_command_line as parse_command_line
from agentcli.commands.host import APP_ONLY, CommandHost, Frontend

if TYPE_CHECKING:
    from agentcli.engine.events import Event
    from agentcli.engine.query_engine import QueryEngine


@dataclass
class CommandContext:
    """What a handler gets.

    `host`: the interactive app (None in `-p` and ACP, which run only the
    commands that declare them); `engine` the session's (None while it is
    built); `args` the text after `/name ` (stripped, possibly empty).
    `output(text)` shows what the command says (markdown); `error(text)` an error.
    `event(e)`: what the command did that a front end shows as it shows the engine's
    own events in a turn (`/compact`'s `Compacted`: stream-json's compact_boundary);
    a front end that has nothing more to show leaves it a no-op.
    """

    host: CommandHost | None
    engine: QueryEngine | None
    args: str = ""
    registry: CommandRegistry | None = None
    output: Callable[[str], None] = field(default=lambda text: None)
    error: Callable[[str], None] = field(default=lambda text: None)
    event: Callable[[Event], None] = field(default=lambda event: None)

    def app(self) -> CommandHost:
        """The host, for a command that runs only in the app (`frontends={"tui"}`): no
        other front end runs it, so there it always is."""
        if self.host is None:
            raise RuntimeError("this command runs only in the interactive app")
        return self.host


Handler = Callable[[CommandContext], Awaitable[None]]

# What a command that needs the engine says while the session is still being built.
NOT_READY = "agentcli is still starting; try again in a moment."


@dataclass(frozen=True)
class Command:
    """One slash command.

    name: without the slash, lowercase ("help").
    description: one line, shown in /help and the completion popup.
    handler: async callable taking a CommandContext.
    argument_hint: shown after the name, e.g. "[model name]".
    aliases: other names that run the same command ("quit" for "exit").
    hidden: registered but left out of /help and completion.
    source: "builtin", "session", "user", ... (for /help grouping).
    frontends: where it runs (commands/host.py): "tui" the app; "print" `-p "/cost"`,
        which prints what it says and refuses the others (commands/headless_prompt.py);
        "acp" an editor's session; "sdk" an SDK program's prompt that is the command.
        Outside the app `ctx.host` is None.
    """

    name: str
    description: str
    handler: Handler
    argument_hint: str = ""
    aliases: tuple[str, ...] = ()
    hidden: bool = False
    source: str = "builtin"
    frontends: frozenset[Frontend] = APP_ONLY

    def runs_in(self, frontend: Frontend) -> bool:
        return frontend in self.frontends


class CommandRegistry:
    """Commands by name (and alias). Registering a name again replaces it,
    so user-defined commands can override built-ins deliberately.

    The app imports the command modules in its loader thread (their `command(...)`
    registers here) while its loop reads the registry for completion: a change never
    alters a table in place but swaps in a new one (one lock for the writers), so a
    reader always sees a whole table, never one changing under its iteration."""

    def __init__(self) -> None:
        self._commands: dict[str, Command] = {}
        self._aliases: dict[str, str] = {}
        self._writing = threading.Lock()

    def register(self, cmd: Command) -> Command:
        name = cmd.name.lower().lstrip("/")
        if not name or any(ch.isspace() for ch in name):
            raise ValueError(f"bad command name: {cmd.name!r}")
        with self._writing:
            aliases = {**self._aliases, **{alias.lower(): name for alias in cmd.aliases}}
            self._commands = {**self._commands, name: cmd}
            self._aliases = aliases
        return cmd

    def unregister(self, name: str) -> None:
        name = name.lower().lstrip("/")
        with self._writing:
            cmd = self._commands.get(name)
            if cmd is None:
                return
            gone = {alias.lower() for alias in cmd.aliases}
            self._commands = {key: c for key, c in self._commands.items() if key != name}
            self._aliases = {key: n for key, n in self._aliases.items() if key not in gone}

    def get(self, name: str) -> Command | None:
        key = name.lower().lstrip("/")
        commands = self._commands
        return commands.get(key) or commands.get(self._aliases.get(key, ""))

    def __contains__(self, name: str) -> bool:
        return self.get(name) is not None

    def all(self, *, include_hidden: bool = False, frontend: Frontend = "tui") -> list[Command]:
        """The commands that run in `frontend`, sorted by name."""
        cmds = sorted(self._commands.values(), key=lambda c: c.name)
        return [c for c in cmds if (include_hidden or not c.hidden) and c.runs_in(frontend)]

    def matching(self, prefix: str) -> list[Command]:
        """Visible commands whose name starts with `prefix` (then those containing it):
        what the completion popup shows as the person types after `/`."""
        prefix = prefix.lower().lstrip("/")
        cmds = self.all()
        starts = [c for c in cmds if c.name.startswith(prefix)]
        contains = [c for c in cmds if prefix in c.name and c not in starts]
        return starts + contains


REGISTRY = CommandRegistry()
"""The process-wide registry the app uses."""


def command(
    name: str,
    description: str,
    *,
    argument_hint: str = "",
    aliases: Iterable[str] = (),
    hidden: bool = False,
    source: str = "builtin",
    frontends: Iterable[Frontend] = APP_ONLY,
    registry: CommandRegistry | None = None,
) -> Callable[[Handler], Handler]:
    """Decorator: register an async handler as `/name` in REGISTRY (or `registry`)."""

    def decorate(handler: Handler) -> Handler:
        (registry or REGISTRY).register(
            Command(
                name=name,
                description=description,
                handler=handler,
                argument_hint=argument_hint,
                aliases=tuple(aliases),
                hidden=hidden,
                source=source,
                frontends=frozenset(frontends),
            )
        )
        return handler

    return decorate


COMMAND_MODULES = (
    "agentcli.commands.builtin",
    "agentcli.commands.session_commands",
    "agentcli.commands.trust_command",
    "agentcli.commands.mcp_servers",
    "agentcli.commands.agents_command",
    "agentcli.commands.export_command",
    "agentcli.commands.effort_command",
    "agentcli.commands.plugin_command",
    "agentcli.commands.tasks_command",
)


def load_command_modules(modules: Iterable[str] | None = None) -> list[str]:
    """Import the modules that register commands (`COMMAND_MODULES` unless told); a
    missing optional module is skipped. Returns the problems (module and error) for the
    app to show, so one broken module does not stop the others loading. The app calls
    it in its loader thread (frontends/tui/startup.py): the imports take a long moment."""
    problems: list[str] = []
    for module in COMMAND_MODULES if modules is None else modules:
        try:
            importlib.import_module(module)
        except ModuleNotFoundError as exc:
            if exc.name != module:
                problems.append(f"{module}: {exc}")
        except Exception as exc:  # a broken command module must not stop the app
            problems.append(f"{module}: {type(exc).__name__}: {exc}")
    return problems
