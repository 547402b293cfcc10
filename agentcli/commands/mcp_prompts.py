"""Each MCP server prompt as a slash command: `/mcp__<server>__<prompt> args`.

The commands follow the servers: `PromptCommands.sync()` runs after every
change the manager announces, so a server that connects adds its prompts to
the registry (and to `/` completion, with their descriptions) and one that
fails or is disabled takes them away. Running one fetches the prompt with
the person's arguments and sends its messages as the person's turn, as
Claude Code does: every message's content, in order, in one user message.

Arguments are positional: the words after the command fill the prompt's
declared arguments in order, quotes group words (`"two words"`), and the
last argument takes whatever words are left. A missing required argument,
or words for a prompt that takes none, is a clear message and nothing is
sent. The prompt is fetched when the message's turn starts (commands/outgoing.py),
so Esc stops a server slow to answer, and one queued behind a turn keeps its
place.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Awaitable, Callable
from functools import partial
from typing import TYPE_CHECKING

from agentcli.commands.registry import Command, CommandContext, CommandRegistry

if TYPE_CHECKING:
    from agentcli.core.messages import Block, Message
    from agentcli.mcp.manager import McpManager
    from agentcli.mcp.status import PromptInfo

SOURCE = "mcp"
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")


class PromptArgumentsError(ValueError):
    """The words given do not fit the prompt's arguments (the message says how)."""


def command_name(server: str, prompt: str) -> str:
    """`mcp__<server>__<prompt>`, lowercase, anything but letters, digits, `_`, `-` as `_`."""
    return f"mcp__{_UNSAFE.sub('_', server)}__{_UNSAFE.sub('_', prompt)}".lower()


def argument_hint(prompt: PromptInfo) -> str:
    """`<topic> [style]`: required arguments in angle brackets, optional in square ones."""
    return " ".join(f"<{a.name}>" if a.required else f"[{a.name}]" for a in prompt.arguments)


def prompt_arguments(prompt: PromptInfo, text: str) -> dict[str, str]:
    """The person's words after the command, as the prompt's named arguments."""
    try:
        words = shlex.split(text)
    except ValueError as exc:  # an unclosed quote
        raise PromptArgumentsError(f"could not read the arguments: {exc}") from None
    declared = prompt.arguments
    if words and not declared:
        raise PromptArgumentsError("this prompt takes no arguments")
    if len(words) > len(declared):
        words = [*words[: len(declared) - 1], " ".join(words[len(declared) - 1 :])]
    given = {arg.name: word for arg, word in zip(declared, words, strict=False)}
    missing = [arg.name for arg in declared if arg.required and arg.name not in given]
    if missing:
        names = ", ".join(missing)
        raise PromptArgumentsError(f"missing required argument{'s' * (len(missing) > 1)}: {names}")
    return given


FetchPrompt = Callable[["McpManager", str, str, dict[str, str]], Awaitable[list["Message"]]]
"""(manager, server, prompt name, arguments) -> the prompt's messages; raises McpCallError.
The app's (frontends/tui/mcp/actions.py), which bounds the call."""


def prompt_command(prompt: PromptInfo, manager: McpManager, fetch: FetchPrompt) -> Command:
    """The slash command that runs `prompt`."""
    name = command_name(prompt.server, prompt.name)
    hint = argument_hint(prompt)

    async def run(ctx: CommandContext) -> None:
        usage = f"/{name}" + (f" {hint}" if hint else "")
        try:
            arguments = prompt_arguments(prompt, ctx.args)
        except PromptArgumentsError as problem:
            ctx.error(f"/{name}: {problem} · usage: {usage}")
            return
        make = partial(prompt_content, fetch, manager, prompt, arguments, f"/{name}")
        ctx.app().send(f"/{name} {ctx.args}".rstrip(), make=make)

    about = prompt.description.strip().splitlines()[0] if prompt.description.strip() else ""
    return Command(
        name=name,
        description=f"{about} (MCP: {prompt.server})" if about else f"MCP: {prompt.server}",
        handler=run,
        argument_hint=hint,
        source=SOURCE,
    )


async def prompt_content(
    fetch: FetchPrompt,
    manager: McpManager,
    prompt: PromptInfo,
    arguments: dict[str, str],
    command: str,
) -> list[Block]:
    """The prompt's messages, fetched now, as one user message's content blocks.
    Raises NotSent (commands/outgoing.py) with the reason."""
    from agentcli.commands.outgoing import NotSent
    from agentcli.core.messages import as_blocks
    from agentcli.mcp.errors import McpCallError

    try:
        messages = await fetch(manager, prompt.server, prompt.name, arguments)
    except McpCallError as problem:
        raise NotSent(f"{command}: {problem}") from None
    content = [block for message in messages for block in as_blocks(message["content"])]
    if not content:
        raise NotSent(f"{command}: the server's prompt {prompt.name} has no content")
    return content


class PromptCommands:
    """Keeps the registry's MCP prompt commands equal to the connected servers' prompts."""

    def __init__(self, registry: CommandRegistry, manager: McpManager, fetch: FetchPrompt) -> None:
        self.registry = registry
        self.manager = manager
        self.fetch = fetch
        self._registered: dict[str, PromptInfo] = {}

    def sync(self) -> None:
        """Register the prompts that came, unregister those that went (a listener)."""
        wanted: dict[str, PromptInfo] = {}
        for prompt in self.manager.prompts():
            name = command_name(prompt.server, prompt.name)
            if name not in self._registered and name in self.registry:
                continue  # a command of another kind (one of the person's) keeps its name
            wanted.setdefault(name, prompt)
        for name in set(self._registered) - set(wanted):
            self.registry.unregister(name)
        for name, prompt in wanted.items():
            if self._registered.get(name) != prompt:
                self.registry.register(prompt_command(prompt, self.manager, self.fetch))
        self._registered = wanted

    def clear(self) -> None:
        for name in self._registered:
            self.registry.unregister(name)
        self._registered = {}
