"""`agentcli --resume` / `/resume`: pick an earlier conversation of this folder.

Each row shows when the session was last active, its first prompt and how
many messages it holds; typing filters by prompt or id. Enter opens the
highlighted one, Esc cancels. The screen returns the chosen SessionSummary
(or None) through `dismiss`. A prompt is shown as `terminal_plain` shows it
(whatever was pasted into it, no control reaches the terminal).
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from agentcli.core.terminal_text import terminal_plain
from agentcli.frontends.tui.widgets.choice_list import ChoiceList


def row_text(summary: Any) -> Text:
    when = summary.updated.astimezone().strftime("%Y-%m-%d %H:%M")
    prompt = " ".join(terminal_plain(summary.first_prompt).split())
    if len(prompt) > 70:
        prompt = prompt[:69] + "…"
    text = Text(f"{when}  ", style="dim")
    text.append(prompt or "(no prompt)")
    text.append(f"  · {summary.message_count} messages", style="dim")
    return text


class SessionPicker(ModalScreen[Any]):
    BINDINGS = [  # noqa: RUF012
        Binding("escape", "cancel", "Cancel"),
        Binding("down", "move(1)", show=False),
        Binding("up", "move(-1)", show=False),
    ]

    DEFAULT_CSS = """
    SessionPicker { align: center middle; }
    SessionPicker > Vertical {
        width: 90%; max-width: 110; height: auto; max-height: 80%;
        border: round $accent; background: $surface; padding: 0 1;
    }
    SessionPicker OptionList { height: auto; max-height: 20; border: none; }
    SessionPicker #picker-title { text-style: bold; }
    """

    def __init__(self, sessions: list[Any]) -> None:
        super().__init__()
        self.sessions = sessions
        self.shown: list[Any] = list(sessions)

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static("Resume a conversation", id="picker-title")
            yield Input(placeholder="Filter by prompt or id", id="picker-filter")
            yield ChoiceList(*self._options(), id="picker-list")

    def on_mount(self) -> None:
        self.query_one(Input).focus()
        self._highlight_first()

    def _options(self) -> list[Option]:
        if not self.shown:
            return [Option(Text("No matching conversation", style="dim"), disabled=True)]
        return [Option(row_text(s), id=s.id) for s in self.shown]

    def _highlight_first(self) -> None:
        options = self.query_one(OptionList)
        options.highlighted = 0 if self.shown else None

    def on_input_changed(self, event: Input.Changed) -> None:
        needle = event.value.strip()
        self.shown = [s for s in self.sessions if not needle or s.matches(needle)]
        options = self.query_one(OptionList)
        options.clear_options()
        options.add_options(self._options())
        self._highlight_first()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        index = self.query_one(OptionList).highlighted
        if self.shown and index is not None:
            self.dismiss(self.shown[index])

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        chosen = next((s for s in self.shown if s.id == event.option.id), None)
        if chosen is not None:
            self.dismiss(chosen)

    def action_move(self, step: int) -> None:
        options = self.query_one(OptionList)
        if not self.shown:
            return
        current = options.highlighted or 0
        options.highlighted = max(0, min(len(self.shown) - 1, current + step))

    def action_cancel(self) -> None:
        self.dismiss(None)
