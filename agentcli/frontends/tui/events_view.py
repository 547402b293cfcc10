"""Engine events -> what the conversation shows. One method, one `match`.

Kept apart from the app so the mapping can be read (and tested) on its own.
The engine never knows about any of this. A permission question is handed
to `ask` (the app shows the prompt, which answers it later), so showing an
event never waits for the person. Notes are given as plain strings:
the conversation decodes them as untrusted text (they quote the model, tools,
hooks and servers), so no control in them reaches the terminal.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, assert_never

from agentcli.frontends.tui.widgets.conversation import Conversation
from agentcli.frontends.tui.widgets.status import StatusLine
from agentcli.frontends.tui.widgets.todo_list import TodoPanel

if TYPE_CHECKING:
    from agentcli.engine.events import Event
    from agentcli.permissions.question import PermissionQuestion

INTERRUPTED_TEXT = "Interrupted · What should agentcli do instead?"


class EventsView:
    def __init__(
        self,
        conversation: Conversation,
        status_line: StatusLine,
        ask: Callable[[PermissionQuestion], None],
        todos: TodoPanel | None = None,
    ) -> None:
        self.todos = todos  # the checklist pinned above the prompt (TodoWrite)
        self.conversation = conversation
        self.status_line = status_line
        self.ask = ask
        self.streamed_chars = 0

    async def show(self, event: Event) -> None:
        from agentcli.engine.compaction import Compacted
        from agentcli.engine.events import (
            ApiRetry,
            AssistantMessage,
            EndReason,
            Notice,
            RequestStarted,
            SubagentEvent,
            TextDelta,
            ThinkingDelta,
            ToolCallFinished,
            ToolCallProgress,
            ToolCallRunning,
            ToolCallStarted,
            ToolPermissionRequested,
            TurnEnded,
            UserMessage,
        )
        from agentcli.frontends.tui.widgets.compaction_note import CompactionNote
        from agentcli.frontends.tui.widgets.subagent_pane import fold, show_subagent_event
        from agentcli.tools.todo_write import TodoDisplay

        conv = self.conversation
        match event:
            case RequestStarted():
                self.status_line.set_phase("Thinking")
            case TextDelta(text=text):
                self.status_line.set_phase("Writing")
                self.streamed_chars += len(text)
                self.status_line.output_tokens = self.streamed_chars // 4
                conv.append_text(text)
            case ThinkingDelta(text=text):
                self.status_line.set_phase("Thinking")
                self.streamed_chars += len(text)
                self.status_line.output_tokens = self.streamed_chars // 4
            case ApiRetry() as retry:
                words = retry.describe()
                conv.add_note(words[0].upper() + words[1:], "warning")
            case AssistantMessage(usage=usage):
                await conv.finish_answer()
                self.streamed_chars = 0
                self.status_line.output_tokens += 0
                self.status_line.output_tokens = max(
                    self.status_line.output_tokens, usage.output_tokens
                )
            case ToolCallStarted(tool_use_id=tid, name=name, input=inp, summary=summary):
                await conv.finish_answer()
                conv.add_tool(tid, name, inp, summary)
            case ToolPermissionRequested(question=question):
                if pane := conv.pane(question.request.tool_use_id):
                    pane.set_state("waiting")
                self.ask(question)
            case ToolCallRunning(tool_use_id=tid, name=name):
                self.status_line.tool_running(tid, name)
                if pane := conv.pane(tid):
                    pane.set_state("running")
            case ToolCallProgress(tool_use_id=tid, data=output):
                if pane := conv.pane(tid):
                    pane.add_output(output.text)
            case ToolCallFinished(tool_use_id=tid, status=status, result=result, display=display):
                self.status_line.tool_finished(tid)
                if pane := conv.pane(tid):
                    fold(pane)
                    pane.finish(status, result, display)
                if isinstance(display, TodoDisplay) and self.todos is not None:
                    self.todos.show_list(display.todos)
            case SubagentEvent(parent_tool_use_id=tid) as wrapped:
                if pane := conv.pane(tid):
                    show_subagent_event(pane, wrapped)
            case Compacted(report=report) if report is not None:
                conv.add_widget(CompactionNote(report))
            case Notice(text=text, level=level):
                conv.add_note(text, level)
            case TurnEnded(reason=reason, error=error):
                await conv.finish_answer()
                if reason in (EndReason.ABORTED_STREAMING, EndReason.ABORTED_TOOLS):
                    conv.add_note(INTERRUPTED_TEXT, "interrupted")
                elif reason is EndReason.MODEL_ERROR:
                    conv.add_note(f"Error: {error or 'the model request failed'}", "error")
                elif reason is EndReason.MAX_TURNS:
                    conv.add_note("Stopped: the maximum number of turns was reached.", "warning")
                elif error:
                    conv.add_note(error, "warning")
            case UserMessage():
                pass  # its tool results are in the panes, its interruption in TurnEnded
            case _:
                assert_never(event)
