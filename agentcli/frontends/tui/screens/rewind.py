"""`/rewind` and Esc Esc: the screens of a rewind (frontends/tui/rewind_flow.py runs them in order).

`RewindPicker` lists the conversation's prompts, newest first: when each was
sent, its first line, how many files the agent changed since, and its id
(what `agentcli --resume ID --rewind-to PROMPT_ID` takes). `RewindQuestion`
is a short list of choices under a few lines of text: what to restore, then,
when the person changed files after the agent's last edit, whether to
overwrite them. Both say that changes made by shell commands are not
tracked. Each returns its answer through `dismiss` (None: cancelled, Esc).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from agentcli.core.terminal_text import terminal_plain
from agentcli.frontends.tui.widgets.choice_list import ChoiceList

NOT_TRACKED = "Changes made by shell commands (Bash, !) are not tracked and are not undone."
_CSS = """
{name} {{ align: center middle; }}
{name} > Vertical {{
    width: 90%; max-width: 110; height: auto; max-height: 80%;
    border: round $accent; background: $surface; padding: 0 1;
}}
{name} OptionList {{ height: auto; max-height: 20; border: none; }}
{name} .rewind-title {{ text-style: bold; }}
{name} .rewind-note {{ color: $text-muted; }}
"""


@dataclass(frozen=True)
class PromptRow:
    """One prompt of the list: what the person sees of it."""

    id: str
    time: datetime
    first_line: str
    files_changed: int

    def text(self) -> Text:
        when = self.time.astimezone().strftime("%H:%M")
        line = " ".join(terminal_plain(self.first_line).split())
        line = line[:59] + "…" if len(line) > 60 else line
        files = f"{self.files_changed} file{'s' if self.files_changed != 1 else ''} changed since"
        text = Text(f"{when}  ", style="dim")
        text.append(line or "(no text)")
        text.append(f"  · {files} · {self.id[:8]}", style="dim")
        return text


class RewindPicker(ModalScreen[str | None]):
    """Which prompt to go back to; returns its id."""

    BINDINGS = [Binding("escape", "cancel", "Cancel")]  # noqa: RUF012
    DEFAULT_CSS = _CSS.format(name="RewindPicker")

    def __init__(self, rows: list[PromptRow]) -> None:
        super().__init__()
        self.rows = rows[::-1]  # the latest first: the usual target is close by

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static("Rewind to before a prompt", classes="rewind-title")
            yield Static(
                "Restore the code and/or the conversation as they were just before it. "
                + NOT_TRACKED,
                classes="rewind-note",
            )
            yield ChoiceList(*[Option(row.text(), id=row.id) for row in self.rows])

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        options.highlighted = 0
        options.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)

    def action_cancel(self) -> None:
        self.dismiss(None)


class RewindQuestion(ModalScreen[str | None]):
    """A title, some lines, and choices `(answer, label, enabled)`; returns the answer."""

    BINDINGS = [Binding("escape", "cancel", "Cancel")]  # noqa: RUF012
    DEFAULT_CSS = _CSS.format(name="RewindQuestion")

    def __init__(self, title: str, lines: list[str], choices: list[tuple[str, str, bool]]) -> None:
        super().__init__()
        self.title_text = title
        self.lines = lines
        self.choices = choices

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Text(terminal_plain(self.title_text)), classes="rewind-title")
            for line in self.lines:
                yield Static(Text(terminal_plain(line)), classes="rewind-note")
            yield ChoiceList(
                *[
                    Option(f"{n}. {label}", id=answer, disabled=not enabled)
                    for n, (answer, label, enabled) in enumerate(self.choices, start=1)
                ]
            )

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        options.highlighted = next((i for i, c in enumerate(self.choices) if c[2]), None)
        options.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)

    def on_key(self, event: events.Key) -> None:
        """A digit takes the choice it numbers, as in a permission question."""
        if event.character is None or not event.character.isdigit():
            return
        index = int(event.character) - 1
        if 0 <= index < len(self.choices) and self.choices[index][2]:
            event.stop()
            self.dismiss(self.choices[index][0])

    def action_cancel(self) -> None:
        self.dismiss(None)
