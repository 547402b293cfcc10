"""The question about a project's new `.mcp.json` servers, asked once on start.

A `.mcp.json` comes with the folder, and each of its servers is a program
agentcli would start (or a service it would send requests to), so none
starts before the person says yes, as in Claude Code. The question lists
each new server with what it would run, and takes:

    1 / a  use all of them
    2 / c  choose: Space ticks a server, Enter uses the ticked ones and
           rejects the rest, Esc goes back
    3 / n  use none of them
    Esc    decide later: nothing is remembered, `/mcp` can approve them

The answers are remembered by the caller (mcp/config/approval.py). As with
the trust question, keys that arrive within `guard_s` of the question
appearing are ignored (they were typed for the prompt); Esc never is, since
it starts nothing. The screen returns an `ApprovalAnswer`, or None for
"later", through `dismiss`.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import SelectionList, Static

from agentcli.core.terminal_text import visible_controls
from agentcli.frontends.tui.mcp.view import runs

if TYPE_CHECKING:
    from agentcli.mcp.config.servers import ConfiguredServer

GUARD_S = 0.25
ALL_KEYS = {"1", "a"}
CHOOSE_KEYS = {"2", "c"}  # with more than one server
NONE_KEYS = {"3", "n"}
NONE_KEYS_ONE = {"2", "n"}  # with one server: there is nothing to choose


@dataclass(frozen=True)
class ApprovalAnswer:
    approved: list[str]
    rejected: list[str]


def question_text(servers: Sequence[ConfiguredServer]) -> Text:
    """The servers, what each would run, and the answers."""
    many = len(servers) > 1
    text = Text()
    text.append(f"New MCP server{'s' * many} found in .mcp.json\n", style="bold")
    text.append(f"This project's .mcp.json would start {'these' if many else 'this'}:\n\n")
    width = max(len(server.name) for server in servers)
    for server in servers:
        text.append(f"  {visible_controls(server.name):<{width}}  ", style="bold")
        text.append(f"{runs(server)}\n")
    text.append(
        "\nA server is a program agentcli runs on your machine, or a service it sends your "
        "data to: use only those you know.\n\n",
        style="dim",
    )
    if many:
        text.append("  1. Use all of them  (1/a)\n")
        text.append("  2. Choose which to use  (2/c)\n")
        text.append("  3. Use none of them  (3/n)\n")
    else:
        text.append("  1. Use it  (1/a)\n")
        text.append("  2. Do not use it  (2/n)\n")
    text.append("  Esc: decide later (/mcp lists them)", style="dim")
    return text


class McpApprovalQuestion(ModalScreen[ApprovalAnswer | None]):
    BINDINGS = [  # noqa: RUF012
        Binding("enter", "confirm", show=False, priority=True),
    ]

    DEFAULT_CSS = """
    McpApprovalQuestion { align: center middle; }
    McpApprovalQuestion > VerticalScroll {
        width: 90%; max-width: 120; height: auto; max-height: 90%;
        border: round $warning; background: $surface; padding: 0 1;
    }
    McpApprovalQuestion SelectionList { height: auto; max-height: 16; display: none; }
    McpApprovalQuestion.-choosing SelectionList { display: block; }
    McpApprovalQuestion #mcp-choose-keys { display: none; color: $text-muted; }
    McpApprovalQuestion.-choosing #mcp-choose-keys { display: block; }
    McpApprovalQuestion.-choosing #mcp-question { display: none; }
    """

    def __init__(self, servers: Sequence[ConfiguredServer], *, guard_s: float = GUARD_S) -> None:
        super().__init__()
        self.servers = list(servers)
        self.guard_s = guard_s
        self.shown_at = time.monotonic()

    @property
    def names(self) -> list[str]:
        return [server.name for server in self.servers]

    @property
    def choosing(self) -> bool:
        return self.has_class("-choosing")

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Static(question_text(self.servers), id="mcp-question")
            yield SelectionList[str](
                *((Text(visible_controls(s.name)), s.name) for s in self.servers),
                id="mcp-choose",
            )
            yield Static(
                "Space ticks a server · Enter uses the ticked ones, rejects the rest · Esc back",
                id="mcp-choose-keys",
            )

    def on_mount(self) -> None:
        self.shown_at = time.monotonic()

    def on_key(self, event: events.Key) -> None:
        key = event.character if event.character and event.character.isprintable() else event.key
        key = (key or "").lower()
        if key == "escape":  # never guarded: it starts nothing
            event.stop()
            if self.choosing:
                self.remove_class("-choosing")
            else:
                self.dismiss(None)
            return
        many = len(self.servers) > 1
        choose, none = (CHOOSE_KEYS, NONE_KEYS) if many else (set(), NONE_KEYS_ONE)
        if self.choosing or key not in ALL_KEYS | choose | none:
            return
        event.stop()
        event.prevent_default()
        if time.monotonic() - self.shown_at < self.guard_s:
            return
        if key in ALL_KEYS:
            self.dismiss(ApprovalAnswer(self.names, []))
        elif key in none:
            self.dismiss(ApprovalAnswer([], self.names))
        else:
            self.add_class("-choosing")
            self.query_one(SelectionList).focus()

    def action_confirm(self) -> None:
        if not self.choosing:
            return
        ticked = set(self.query_one(SelectionList).selected)
        approved = [name for name in self.names if name in ticked]
        self.dismiss(ApprovalAnswer(approved, [n for n in self.names if n not in ticked]))
