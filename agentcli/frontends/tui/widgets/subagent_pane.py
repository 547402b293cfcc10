"""A subagent's live progress inside its Task call's pane, folded away when it ends.

The Task call has a tool pane like any call; while its subagent runs, the
`SubagentEvent`s of that call update a `SubagentProgress` line under the
header: what it is doing now (the tool it runs, or writing), how many tools
it has called, and its tokens so far. When the subagent's run ends (or the
call finishes, interrupted), the line goes and the pane's own one-line
summary (the `SubagentDisplay` renderer) says what it did.

The subagent's words are untrusted like any tool output: labels are shown
with controls as symbols.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual.widgets import Static

from agentcli.core.terminal_text import visible_controls
from agentcli.frontends.tui.widgets.status import format_tokens

if TYPE_CHECKING:
    from agentcli.engine.events import Event, SubagentEvent
    from agentcli.frontends.tui.widgets.tool_pane import ToolPane


class SubagentProgress(Static):
    """`Explore: find A · Running Grep(def main) · 3 tool uses · 1.2k tokens`."""

    DEFAULT_CSS = "SubagentProgress { padding: 0 0 0 2; color: $text-muted; }"

    def __init__(self, agent_type: str, description: str) -> None:
        super().__init__("", classes="subagent-progress")
        self.title = visible_controls(f"{agent_type}: {description}")
        self.doing = "Starting"
        self.tool_uses = 0
        self.tokens = 0
        self._streamed = 0  # characters of the answer in progress
        self._labels: dict[str, str] = {}  # tool_use id -> `Grep(def main)`
        self._draw()

    def see(self, event: Event) -> None:
        from agentcli.engine.events import (
            AssistantMessage,
            RequestStarted,
            TextDelta,
            ToolCallRunning,
            ToolCallStarted,
        )
        from agentcli.frontends.tui.widgets.tool_pane import tool_label

        match event:
            case RequestStarted():
                self.doing = "Thinking"
            case TextDelta(text=text):
                self.doing = "Writing"
                self._streamed += len(text)
            case AssistantMessage(usage=usage):
                self.tokens += usage.input_tokens + usage.output_tokens
                self._streamed = 0
            case ToolCallStarted(tool_use_id=tid, name=name, input=inp, summary=summary):
                self.tool_uses += 1
                self._labels[tid] = self.doing = tool_label(name, summary, inp)
            case ToolCallRunning(tool_use_id=tid, name=name):
                self.doing = f"Running {self._labels.get(tid, name)}"
            case _:
                return
        self._draw()

    def _draw(self) -> None:
        text = Text("⎿  ")
        text.append(self.title, style="bold")
        text.append(f" · {self.doing}")
        uses = f"{self.tool_uses} tool use{'s' if self.tool_uses != 1 else ''}"
        tokens = format_tokens(self.tokens + self._streamed // 4)
        text.append(f" · {uses} · {tokens} tokens", style="dim")
        self.update(text)


def show_subagent_event(pane: ToolPane, wrapped: SubagentEvent) -> None:
    """Update the progress line of `pane` (the Task call's) with one subagent event."""
    from agentcli.engine.events import TurnEnded

    if isinstance(wrapped.event, TurnEnded):
        fold(pane)
        return
    found = pane.query(SubagentProgress)
    progress = found.first() if found else None
    if progress is None:
        progress = SubagentProgress(wrapped.agent_type, wrapped.description)
        pane.mount(progress)
    progress.see(wrapped.event)


def fold(pane: ToolPane) -> None:
    """The subagent is done: its progress line goes (the pane's summary stays)."""
    pane.query(SubagentProgress).remove()
