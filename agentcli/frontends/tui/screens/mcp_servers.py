"""`/mcp`: the session's MCP servers, what each offers, and what the person can do.

A list of every configured server with its state (connected, connecting,
failed, needs approval, disabled), scope and transport; under it the
highlighted server's details: where it is configured, what it runs, why it
failed and the last lines of its stderr, its tools, prompts and resources.
The keys act on the highlighted server, and only the ones that apply to its
state are offered:

    r  reconnect (a failed server, or any other started one)
    d  disable for this session      e  enable again
    a  approve a project server      n  reject it (both remembered)
    Esc / q  close

The screen follows the manager: every change it announces redraws the list,
so a server seen connecting turns connected or failed in place. An action
runs in a worker, so a server slow to stop never freezes the screen.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from agentcli.core.terminal_text import visible_controls
from agentcli.frontends.tui.mcp import actions as mcp_actions
from agentcli.frontends.tui.mcp.view import details, server_row
from agentcli.frontends.tui.widgets.choice_list import ChoiceList

if TYPE_CHECKING:
    from agentcli.mcp.manager import McpManager
    from agentcli.mcp.status import ServerStatus
    from agentcli.mcp.tools import ToolSpec

NAME_WIDTH = 24
# What each state lets the person do, in the order the keys are shown.
ACTIONS = {
    "connected": ("reconnect", "disable"),
    "pending": ("reconnect", "disable"),
    "failed": ("reconnect", "disable"),
    "disabled": ("enable",),
    "needs approval": ("approve", "reject"),
}
KEYS = {"reconnect": "r", "disable": "d", "enable": "e", "approve": "a", "reject": "n"}
DONE = {
    "reconnect": "Reconnecting {name}.",
    "enable": "Enabled {name}: connecting.",
    "disable": "Disabled {name} for this session.",
    "approve": "Approved {name} (remembered for this project): connecting.",
    "reject": "Rejected {name} (remembered for this project): it will not start.",
}


class McpServersScreen(ModalScreen[None]):
    BINDINGS = [  # noqa: RUF012
        Binding("escape,q", "close", "Close"),
        Binding("r", "act('reconnect')", show=False),
        Binding("d", "act('disable')", show=False),
        Binding("e", "act('enable')", show=False),
        Binding("a", "act('approve')", show=False),
        Binding("n", "act('reject')", show=False),
    ]

    DEFAULT_CSS = """
    McpServersScreen { align: center middle; }
    McpServersScreen > Vertical {
        width: 90%; max-width: 120; height: auto; max-height: 90%;
        border: round $accent; background: $surface; padding: 0 1;
    }
    McpServersScreen #mcp-title { text-style: bold; }
    McpServersScreen OptionList { height: auto; max-height: 12; border: none; }
    McpServersScreen #mcp-details-scroll { height: auto; max-height: 24; }
    McpServersScreen #mcp-keys, McpServersScreen #mcp-message { color: $text-muted; }
    """

    def __init__(self, manager: McpManager, project: Path) -> None:
        super().__init__()
        self.manager = manager
        self.project = project
        self.statuses: list[ServerStatus] = []
        self.message = ""
        self._undo: Callable[[], None] | None = None

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static("MCP servers", id="mcp-title")
            yield ChoiceList(id="mcp-list")
            yield Static("", id="mcp-problems")
            with VerticalScroll(id="mcp-details-scroll"):
                yield Static("", id="mcp-details")
            yield Static("", id="mcp-keys")
            yield Static("", id="mcp-message")

    def on_mount(self) -> None:
        self._undo = self.manager.on_change(self.refresh_servers)
        self.refresh_servers()
        self.query_one(OptionList).focus()

    def on_unmount(self) -> None:
        if self._undo is not None:
            self._undo()

    # -- what is shown ----------------------------------------------------------------

    def refresh_servers(self) -> None:
        """Redraw from the manager, keeping the highlighted server."""
        current = self.selected
        self.statuses = self.manager.status()
        options = self.query_one(OptionList)
        width = min(NAME_WIDTH, max((len(s.name) for s in self.statuses), default=0))
        options.clear_options()
        options.add_options([Option(server_row(s, width), id=s.name) for s in self.statuses])
        names = [s.name for s in self.statuses]
        if names:
            keep = current.name if current is not None and current.name in names else names[0]
            options.highlighted = names.index(keep)
        self.query_one("#mcp-problems", Static).update(self._problems())
        self._show_selected()

    @property
    def selected(self) -> ServerStatus | None:
        if not self.statuses:
            return None
        index = self.query_one(OptionList).highlighted
        return self.statuses[index] if index is not None and index < len(self.statuses) else None

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        self._show_selected()

    def _show_selected(self) -> None:
        status = self.selected
        body = Text("No MCP server is configured.") if status is None else self._details(status)
        self.query_one("#mcp-details", Static).update(body)
        self.query_one("#mcp-keys", Static).update(self._keys(status))
        self.query_one("#mcp-message", Static).update(visible_controls(self.message))

    def _details(self, status: ServerStatus) -> Text:
        name = status.name
        manager = self.manager
        return details(
            status,
            manager.configured.get(name),
            self._tools(name),
            [p for p in manager.prompts() if p.server == name],
            [r for r in manager.resources() if r.server == name],
        )

    def _tools(self, server: str) -> list[ToolSpec]:
        from agentcli.mcp.tools import McpTool

        return [
            t.spec for t in self.manager.tools() if isinstance(t, McpTool) and t.server == server
        ]

    def _keys(self, status: ServerStatus | None) -> str:
        actions = ACTIONS.get(status.state, ()) if status is not None else ()
        return " · ".join([*(f"{KEYS[a]} {a}" for a in actions), "↑↓ select", "Esc close"])

    def _problems(self) -> Text:
        text = Text()
        for problem in self.manager.problems:
            text.append(f"⚠ {visible_controls(problem)}\n", style="yellow")
        return text

    # -- what the person does ----------------------------------------------------------

    def action_close(self) -> None:
        self.dismiss(None)

    def action_act(self, action: str) -> None:
        status = self.selected
        if status is None:
            return
        if action not in ACTIONS.get(status.state, ()):
            self._say(f"{status.name} is {status.state}: it cannot be {_past(action)} now.")
            return
        self._say(f"{action.capitalize()} {status.name}…")
        self.run_worker(self._act(action, status.name), group="mcp-action", exit_on_error=False)

    async def _act(self, action: str, name: str) -> None:
        problem = await self._call(action, name)
        self._say(problem or DONE[action].format(name=name))
        self.refresh_servers()

    def _call(self, action: str, name: str) -> Awaitable[str | None]:
        manager = self.manager
        match action:
            case "reconnect" | "enable":
                return mcp_actions.reconnect(manager, name)
            case "disable":
                return mcp_actions.disable(manager, name)
            case "approve":
                return mcp_actions.approve(manager, self.project, [name])
            case _:
                return mcp_actions.reject(manager, self.project, [name])

    def _say(self, message: str) -> None:
        self.message = message
        self.query_one("#mcp-message", Static).update(visible_controls(message))


def _past(action: str) -> str:
    return {"reconnect": "reconnected", "reject": "rejected"}.get(action, f"{action}d")
