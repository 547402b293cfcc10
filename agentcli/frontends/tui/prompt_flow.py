"""What the prompt's text becomes: completions while typing, and on Enter a slash
command, a `!` shell command or a message.

The completion popup offers commands after `/` and files and MCP resources
after `@`. Tab takes the choice into the prompt (`/model `, so arguments can
follow); Enter on a command runs it, as Claude Code does (`/model` + Enter is
`/model` sent), and on a file takes it into the prompt. What Enter does is
decided on the text as it is when Enter is handled, so keys that arrive
together (a fast terminal, a paste-like burst) cannot leave it acting on a
popup that was about to close or swallow it. Submitting records the text in
the history and routes it. Kept apart from the app, which only forwards the
prompt's messages here.

A file choice that is an image (by its bytes) goes in as its token, `[Image #1]`,
with the image attached to the prompt (prompt_images.py); images whose token is
still in the text go with it when it is sent.

The flow owns the completion's file list (`files`, listed at start-up); it
gets a `PromptHost`, and the turn runner's `run_shell` for `!` lines.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

from agentcli.commands.host import CommandHost
from agentcli.commands.registry import CommandContext, parse_command_line
from agentcli.core.images import ImageProblem
from agentcli.core.messages import Block
from agentcli.frontends.tui.completers import (
    Completion,
    command_completions,
    file_completions,
    resource_completions,
)
from agentcli.frontends.tui.host import RunsWorkers
from agentcli.frontends.tui.prompt_images import is_image_file, read_image_file

if TYPE_CHECKING:
    from agentcli.commands.registry import CommandRegistry
    from agentcli.frontends.tui.state import AppState
    from agentcli.frontends.tui.widgets.completion_popup import CompletionPopup
    from agentcli.frontends.tui.widgets.prompt_input import PromptInput

COMMAND_PUNCTUATION = str.maketrans("", "", "-_:")  # in a command's name (`/mcp__s__p`)


class Submitted(NamedTuple):
    """A prompt as entered: as typed, expanded, its images, the command it names (its
    name and expanded arguments)."""

    text: str
    full: str
    images: list[Block]
    command: tuple[str, str] | None


class PromptHost(CommandHost, RunsWorkers, Protocol):
    """What the prompt flow needs of the app: the prompt, its popup, the commands, and
    what a command may ask of the app (it is their host)."""

    @property
    def state(self) -> AppState: ...
    @property
    def prompt(self) -> PromptInput: ...
    @property
    def popup(self) -> CompletionPopup: ...
    @property
    def registry(self) -> CommandRegistry: ...
    def markdown_note(self, text: str) -> None: ...
    def send_with_images(self, text: str, images: list[Block]) -> None: ...


class PromptFlow:
    def __init__(
        self, app: PromptHost, run_shell: Callable[[str], Coroutine[Any, Any, None]]
    ) -> None:
        """`run_shell`: runs a `!` line's command (frontends/tui/turns.py)."""
        self.app = app
        self.run_shell = run_shell
        self.files: list[str] | None = None  # the project's, for `@`; None: not listed yet
        # The command modules are in the registry (they load in the start-up's thread);
        # until then a command entered waits, and so does what is entered after it.
        self.commands_in = False
        self._held: list[Submitted] = []

    # -- completion -------------------------------------------------------------------

    def update_completion(self) -> None:
        app = self.app
        text = app.prompt.text
        items = command_completions(text, app.registry) if self.commands_in else []
        if not items and "@" in text:
            row, col = app.prompt.cursor_location
            offset = sum(len(line) + 1 for line in text.split("\n")[:row]) + col
            resources = app.state.mcp_link.resources() if app.state.mcp_link is not None else []
            items = resource_completions(text, offset, resources)
            items += file_completions(text, offset, self.files or [])
        app.popup.show(items)
        app.prompt.popup_open = app.popup.showing

    async def navigate(self, key: str) -> None:
        """A key the prompt passed on because the popup was open when it was pressed.
        The popup may have closed since (a space typed just before): then Enter sends
        the text, and the other keys do nothing."""
        popup = self.app.popup
        if key == "enter":
            await self._enter()
        elif not popup.showing:
            return
        elif key == "up":
            popup.move(-1)
        elif key == "down":
            popup.move(1)
        elif key == "escape":
            self.close_popup()
        elif key == "tab":
            choice = popup.selected()
            if choice is not None:
                self._take(choice)

    def close_popup(self) -> None:
        self.app.popup.hide()
        self.app.prompt.popup_open = False

    async def _enter(self) -> None:
        """Run the highlighted command, take the highlighted file, or send the text."""
        app = self.app
        choice = app.popup.selected() if app.popup.showing else None
        if choice is None:
            await self.submit(app.prompt.text)
        elif choice.command:
            await self.submit(f"/{choice.command}")
        else:
            self._take(choice)

    def _take(self, choice: Completion) -> None:
        """Put the choice in place of the token it completes: an image file's token
        (`[Image #1]`, the image attached) for an image file."""
        app = self.app
        self.close_popup()
        text = app.prompt.text
        value = self._image_token(choice) or choice.value
        app.prompt.set_text(text[: choice.start] + value + text[choice.end :])

    def _image_token(self, choice: Completion) -> str | None:
        if choice.command or choice.label not in (self.files or []):
            return None
        path = self.app.state.cwd / choice.label
        if not is_image_file(path):
            return None
        try:
            image = read_image_file(path)
        except ImageProblem as problem:  # the `@path` goes in; sending says it again
            self.app.note(f"Not attached: {choice.label}: {problem}.", "warning")
            return None
        mark = self.app.prompt.attach_image(choice.label, image)
        return f"{mark} " if mark is not None else None

    # -- submitting -------------------------------------------------------------------

    async def submit(self, text: str) -> None:
        """`text`: as typed, long pastes still folded into placeholders."""
        if not text.strip():
            return
        app = self.app
        full = app.prompt.pastes.expand(text)
        images = app.prompt.images.take(text)  # those whose token is still in the text
        if app.prompt.prompt_history is not None:  # set when the prompt mounted
            app.prompt.prompt_history.add(full)
        app.prompt.set_text("")
        self.close_popup()
        parsed = parse_command_line(text)
        command = (parsed[0], app.prompt.pastes.expand(parsed[1])) if parsed else None
        if self._held or (command is not None and not self.commands_in):
            self._held.append(Submitted(text, full, images, command))  # after the modules
            return
        await self._route(Submitted(text, full, images, command))

    async def commands_ready(self) -> None:
        """The command modules are in the registry: what was submitted before runs now,
        in order, and the completion shows the commands."""
        self.commands_in = True
        held, self._held = self._held, []
        for submitted in held:
            await self._route(submitted)
        self.update_completion()  # a `/` typed before the commands were loaded

    async def _route(self, submitted: Submitted) -> None:
        app = self.app
        text, full, images, command = submitted
        if command is not None and command[0] in app.registry:
            await self.run_command(*command)
        elif command is not None and command[0].translate(COMMAND_PUNCTUATION).isalnum():
            app.note(f"Unknown command: /{command[0]} · /help lists the commands", "warning")
        elif text.startswith("!") and text[1:].strip():
            shell = self.run_shell(full[1:].strip())
            app.run_worker(shell, group="shell", exit_on_error=False)
        elif images:
            app.send_with_images(text, images)
        else:
            app.send(text)

    async def run_command(self, name: str, args: str) -> None:
        app = self.app
        command = app.registry.get(name)
        if command is None:
            return
        ctx = CommandContext(
            host=app,
            engine=app.state.engine,
            args=args,
            registry=app.registry,
            output=app.markdown_note,
            error=lambda text: app.note(text, "error"),
        )
        try:
            await command.handler(ctx)
        except Exception as exc:  # a broken command must not take the app down
            app.note(f"/{name} failed: {type(exc).__name__}: {exc}", "error")
