"""What a slash command may ask of the front end running it, and which front ends those are.

A command's handler gets a `CommandContext` (commands/registry.py): the
engine, its arguments, where to write, and, in the interactive app, a
`CommandHost`: the few things of the app a command may do (send a message,
clear the conversation, open a screen, ...). The host is a Protocol: this
package never imports the app (agentcli/frontends/tui/app.py implements it), so
the arrows point down, from the front ends to the commands.

Each command says where it runs (`Command.frontends`):

- "tui": the interactive app, which gives a host;
- "print": `-p "/cost"`, no host: what the command says is the answer
  (commands/headless_prompt.py);
- "acp": an editor's session (frontends/acp), no host: the command is
  announced in `available_commands_update` and runs on the session's engine;
- "sdk": an Agent SDK program's prompt that is the command (`query("/compact")`,
  as Claude Code takes it), no host: run like "print", its answer the turn's result
  (frontends/sdk/session.py). Any other prompt goes to the model as written.

`/help` in the app, the editor's command list and what `-p` accepts all read
these declarations, so they cannot disagree.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol

if TYPE_CHECKING:
    from agentcli.commands.outgoing import Blocks
    from agentcli.config.untrusted import Withheld
    from agentcli.engine.query_engine import QueryEngine
    from agentcli.mcp.manager import McpManager
    from agentcli.permissions.question import PermissionQuestion
    from agentcli.session.loader import LoadedSession
    from agentcli.tools.background.tasks import TaskBoard

Frontend = Literal["tui", "print", "acp", "sdk"]
APP_ONLY: frozenset[Frontend] = frozenset({"tui"})


class CommandFiles(Protocol):
    """The app's commands from files (commands/file_commands.py), read again on `/clear`."""

    def load(self, root: Path) -> list[str]: ...


class CommandHost(Protocol):
    """The interactive app, as a slash command sees it."""

    @property
    def cwd(self) -> Path: ...
    @property
    def provider_error(self) -> str | None: ...
    @property
    def theme_name(self) -> str: ...
    @property
    def file_commands(self) -> CommandFiles: ...
    def built_engine(self) -> QueryEngine: ...
    def note(self, text: str, level: str = "info") -> None: ...
    def refresh_status(self) -> None: ...
    def send(
        self,
        text: str,
        *,
        make: Callable[[], Awaitable[Blocks]] | None = None,
        scope: Callable[[], AbstractContextManager[Any]] = ...,
    ) -> None: ...
    def ask_permission(self, question: PermissionQuestion) -> None: ...
    async def clear_conversation(self) -> None: ...
    def theme_names(self) -> list[str]: ...
    def toggle_vim(self) -> bool: ...
    def set_theme(self, name: str) -> str | None: ...
    def last_answer(self) -> str: ...
    def copy_to_clipboard(self, text: str) -> None: ...
    def exit(self) -> None: ...
    async def pick_session(self) -> None: ...
    async def resume_session(self, loaded: LoadedSession) -> None: ...
    def open_rewind(self) -> None: ...
    def show_trust_question(
        self, items: list[Withheld], on_answer: Callable[[bool], None]
    ) -> None: ...
    def show_mcp_servers(self, manager: McpManager) -> None: ...
    def show_tasks(self, board: TaskBoard) -> None: ...
