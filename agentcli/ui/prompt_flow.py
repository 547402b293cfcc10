"""What the prompt's text becomes: completions while typing, and on Enter a slash
command, a `!` shell command or a message.

The completion popup offers commands after `/` and files and MCP resources
after `@`; Tab or Enter takes the choice (Enter also runs a command that takes
no arguments, like Claude Code). Submitting records the text in the history
and routes it. Kept apart from the app, which only forwards the prompt's
messages here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agentcli.commands.registry import CommandContext, parse_command_line
from agentcli.ui.completers import command_completions, file_completions, resource_completions
from agentcli.ui.widgets.prompt_input import PromptInput

if TYPE_CHECKING:
    from agentcli.ui.app import AgentApp

COMMAND_PUNCTUATION = str.maketrans("", "", "-_:")  # in a command's name (`/mcp__s__p`)


class PromptFlow:
    def __init__(self, app: AgentApp) -> None:
        self.app = app

    # -- completion -------------------------------------------------------------------

    def update_completion(self) -> None:
        app = self.app
        text = app.prompt.text
        items = command_completions(text, app.registry)
        if not items and "@" in text:
            row, col = app.prompt.cursor_location
            offset = sum(len(line) + 1 for line in text.split("\n")[:row]) + col
            resources = app.mcp_link.resources() if app.mcp_link is not None else []
            items = resource_completions(text, offset, resources)
            items += file_completions(text, offset, app.files or [])
        app.popup.show(items)
        app.prompt.popup_open = app.popup.showing

    def navigate(self, key: str) -> None:
        """A key the prompt passes on while the popup is open."""
        popup = self.app.popup
        if key == "up":
            popup.move(-1)
        elif key == "down":
            popup.move(1)
        elif key == "escape":
            self.close_popup()
        elif key in ("tab", "enter"):
            self._accept_completion(submit=key == "enter")

    def close_popup(self) -> None:
        self.app.popup.hide()
        self.app.prompt.popup_open = False

    def _accept_completion(self, *, submit: bool) -> None:
        app = self.app
        choice = app.popup.selected()
        self.close_popup()
        if choice is None:
            return
        text = app.prompt.text
        new = text[: choice.start] + choice.value + text[choice.end :]
        # A command with no arguments runs on Enter, like Claude Code.
        cmd = parse_command_line(choice.value)
        if submit and cmd is not None:
            command = app.registry.get(cmd[0])
            if command is not None and not command.argument_hint:
                app.prompt.set_text("")
                app.post_message(PromptInput.Submitted(choice.value.strip()))
                return
        app.prompt.set_text(new)

    # -- submitting -------------------------------------------------------------------

    async def submit(self, text: str) -> None:
        """`text`: as typed, long pastes still folded into placeholders."""
        if not text.strip():
            return
        app = self.app
        full = app.prompt.pastes.expand(text)
        app.history.add(full)
        app.prompt.set_text("")
        self.close_popup()
        command = parse_command_line(text)
        if command is not None and command[0] in app.registry:
            await self.run_command(command[0], app.prompt.pastes.expand(command[1]))
        elif command is not None and command[0].translate(COMMAND_PUNCTUATION).isalnum():
            app.note(f"Unknown command: /{command[0]} · /help lists the commands", "warning")
        elif text.startswith("!") and text[1:].strip():
            shell = app.turns.run_shell(full[1:].strip())
            app.run_worker(shell, group="shell", exit_on_error=False)
        else:
            app.send(text)

    async def run_command(self, name: str, args: str) -> None:
        app = self.app
        command = app.registry.get(name)
        if command is None:
            return
        ctx = CommandContext(
            app=app,
            engine=app.engine,
            args=args,
            registry=app.registry,
            output=app.markdown_note,
            error=lambda text: app.note(text, "error"),
        )
        try:
            await command.handler(ctx)
        except Exception as exc:  # a broken command must not take the app down
            app.note(f"/{name} failed: {type(exc).__name__}: {exc}", "error")
