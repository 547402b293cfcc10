"""A custom command run on an engine: its `!` commands and `@` files through the
permission gate, and what its front matter grants for its turn.

`!` commands are Bash calls the person did not type: the gate decides each
one like a Bash tool call (rules, mode, sandbox), and a question goes to the
front end through `ask` (the TUI shows it; `-p` gives the headless answer).
A command file that comes with a folder the person has not trusted never
runs one without asking. `@` files get Read's decision, then the same
reading as an attachment typed in the prompt (commands/attachments.py).

A `!` command runs with the Bash tool's timeout (2 minutes) unless the
front end bounds it (`shell_timeout_ms`: `-p` waits 30 s, since nobody can
press Esc there; AGENTCLI_COMMAND_SHELL_TIMEOUT_MS changes it). One that
does not finish in time is stopped, with everything it started, and the
prompt is not made (`ShellTimedOut`, naming the command and the bound): its
partial output would be a prompt the person never saw.

`allowed-tools` are added to the policy's allow rules for the command's
turn only (`command_turn`), so the gate, not a bypass, lets those calls
through; they are taken away when the turn ends. They count only where the
file is trusted. `model` is the model for that turn.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager
from typing import TYPE_CHECKING, Any
from uuid import uuid4

from pydantic import ValidationError

from agentcli.commands.attachments import attach
from agentcli.commands.command_files import PROJECT, CommandFile
from agentcli.commands.expansion import Blocks, Expansion, ExpansionError, expand
from agentcli.core.abort import AbortSignal
from agentcli.core.messages import ResultPart, is_text
from agentcli.permissions.question import PermissionQuestion
from agentcli.permissions.question_models import PermissionAnswer
from agentcli.permissions.types import Decision
from agentcli.tools.base import Tool, ToolContext
from agentcli.tools.bash import DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_MS, BashInput, BashTool, format_ms
from agentcli.tools.display import CommandDisplay
from agentcli.tools.inputs import ToolInput
from agentcli.tools.read import ReadInput, ReadTool

if TYPE_CHECKING:
    from agentcli.engine.query_engine import QueryEngine

Ask = Callable[[PermissionQuestion], Awaitable[PermissionAnswer]]
UNTRUSTED = "it comes from a command file of a folder you have not trusted"
HEADLESS_SHELL_TIMEOUT_MS = 30_000
SHELL_TIMEOUT_VARIABLE = "AGENTCLI_COMMAND_SHELL_TIMEOUT_MS"


class ShellTimedOut(ExpansionError):
    """A `!` command ran past its bound and was stopped."""


def headless_shell_timeout(environ: Mapping[str, str]) -> tuple[int, str | None]:
    """How long -p waits for each `!` command (ms), and the problem with a malformed
    AGENTCLI_COMMAND_SHELL_TIMEOUT_MS (its default is used then)."""
    raw = environ.get(SHELL_TIMEOUT_VARIABLE, "").strip()
    if not raw:
        return HEADLESS_SHELL_TIMEOUT_MS, None
    if raw.isdigit() and 1 <= int(raw) <= MAX_TIMEOUT_MS:
        return int(raw), None
    return HEADLESS_SHELL_TIMEOUT_MS, (
        f"{SHELL_TIMEOUT_VARIABLE}={raw!r} is not a number of milliseconds from 1 to "
        f"{MAX_TIMEOUT_MS}; {format_ms(HEADLESS_SHELL_TIMEOUT_MS)} is used"
    )


def is_trusted(engine: QueryEngine, command: CommandFile) -> bool:
    """The person's own commands are; a project's, when its folder is."""
    if command.scope != PROJECT:
        return True
    if engine.settings is not None:
        return engine.settings.trusted
    from agentcli.config.trust import is_trusted as folder_trusted

    return folder_trusted(engine.workspace.root)


class GatedRunner:
    """`expansion.Runner` for one command on `engine`."""

    def __init__(
        self, engine: QueryEngine, ask: Ask, *, trusted: bool, shell_timeout_ms: int | None = None
    ) -> None:
        self.engine = engine
        self.ask = ask
        self.trusted = trusted
        self.shell_timeout_ms = shell_timeout_ms  # None: the Bash tool's own
        self.abort = AbortSignal()  # Esc cancels the task; this stays for the tool's context

    async def shell(self, command: str) -> str:
        tool = self.engine.tools.get("Bash") or BashTool()
        raw: dict[str, Any] = {"command": command, "timeout": self.shell_timeout_ms}
        inp = _valid(BashInput, raw, f"!`{command}`")
        await self._permit(tool, inp, f"!`{command}`", always_ask=not self.trusted)
        context = ToolContext(
            workspace=self.engine.workspace,
            abort=self.abort,
            tool_use_id=_call_id(),
            search_filter=self.engine.gate.policy.search_filter(tool.name),
        )
        result = await tool.run(inp, context)
        shown = result.display
        if isinstance(shown, CommandDisplay) and shown.timed_out:
            bound = format_ms(self.shell_timeout_ms or DEFAULT_TIMEOUT_MS)
            raise ShellTimedOut(
                f"!`{command}` did not finish in {bound}; it was stopped, "
                "with every process it started, and nothing was sent"
            )
        return _text(result.content)

    async def include(self, mention: str) -> tuple[Blocks, list[str]]:
        workspace = self.engine.workspace
        path = workspace.resolve(mention)
        if not path.is_file():  # `@someone` in prose, as for a typed prompt
            return [], []
        inp = _valid(ReadInput, {"file_path": str(path)}, f"@{mention}")
        await self._permit(ReadTool(), inp, f"@{mention}", always_ask=False)
        return await asyncio.to_thread(attach, f"@{mention}", workspace.root)

    async def _permit(self, tool: Tool, inp: ToolInput, what: str, *, always_ask: bool) -> None:
        """Return when the gate (or the person) allows the call; raise ExpansionError if not."""
        gate = self.engine.gate
        decision = gate.decide(tool, inp)
        if decision.behavior == "allow" and always_ask:
            decision = Decision("ask", UNTRUSTED)
        if decision.behavior == "deny":
            raise ExpansionError(f"{what} is not allowed ({decision.reason})")
        if decision.behavior == "allow":
            return
        question = gate.question(tool, inp, _call_id(), decision.reason, None)
        answer = await self.ask(question)
        verdict = gate.apply(question, answer)
        if verdict.interrupt:
            raise ExpansionError(f"{what}: interrupted at the permission question")
        if not verdict.allowed:
            said = f": {answer.feedback}" if answer.feedback else ""
            raise ExpansionError(f"{what} was not allowed{said}")


@contextmanager
def command_turn(engine: QueryEngine, command: CommandFile, *, trusted: bool) -> Iterator[None]:
    """For the command's turn: its `allowed-tools` as allow rules (where trusted), its model."""
    policy = engine.gate.policy
    added = [rule for rule in command.allowed_tools if trusted and rule not in policy.allow]
    policy.allow.extend(added)
    model = engine.config.model
    if command.model:
        engine.config.model = command.model
    try:
        yield
    finally:
        for rule in added:
            if rule in policy.allow:
                policy.allow.remove(rule)
        if command.model and engine.config.model == command.model:
            engine.config.model = model


def _valid(model: type[ToolInput], raw: dict[str, Any], what: str) -> ToolInput:
    try:
        return model.model_validate(raw)
    except ValidationError as exc:
        raise ExpansionError(f"{what}: {exc.errors()[0]['msg']}") from None


def _text(content: str | list[ResultPart]) -> str:
    if isinstance(content, str):
        return content
    return "\n".join(block.get("text", "") for block in content if is_text(block))


def _call_id() -> str:
    return f"command_{uuid4().hex[:16]}"


class CommandRun:
    """One run of `command` with `arguments` on `engine`, for any front end:
    `turn()` around the whole turn, `content(ask)` inside it for what the model gets."""

    def __init__(self, engine: QueryEngine, command: CommandFile, arguments: str) -> None:
        self.engine = engine
        self.command = command
        self.arguments = arguments
        self.trusted = is_trusted(engine, command)

    def turn(self) -> AbstractContextManager[None]:
        return command_turn(self.engine, self.command, trusted=self.trusted)

    async def content(self, ask: Ask, *, shell_timeout_ms: int | None = None) -> Expansion:
        """Raises ExpansionError (the message names the command); `shell_timeout_ms`:
        the bound on each `!` command (None: the Bash tool's)."""
        runner = GatedRunner(
            self.engine, ask, trusted=self.trusted, shell_timeout_ms=shell_timeout_ms
        )
        try:
            expansion = await expand(self.command.body, self.arguments, runner)
        except ExpansionError as problem:
            raise type(problem)(f"/{self.command.name}: {problem}") from None
        if self.command.allowed_tools and not self.trusted:
            expansion.notes.append(
                f"/{self.command.name}: its allowed-tools do not apply in a folder "
                "you have not trusted"
            )
        return expansion
