"""Turns: sending a message, running its turn, and showing what the engine does.

A message goes at once when the engine is ready and idle; otherwise it waits in
`app.queue` and goes when the turn before it ends or start-up finishes. A turn
runs in an async worker: it makes the message's content (`@` attachments, the
output of `!` commands, a prepared prompt), submits it to the engine and hands
each event to EventsView. Esc interrupts it through `engine.interrupt()` (the
engine keeps the transcript valid, so the next message simply continues), or,
while the content is still being made, cancels the worker. A permission
question arrives as one of those events: it is shown in place of the input,
and the prompt answers it (permissions/question.py).

The state others read (the queue, the turn's worker, `making_message`, the
permission prompt) stays on the app; this class is the behaviour around it.
"""

from __future__ import annotations

import asyncio
import time
from contextlib import nullcontext
from functools import partial
from typing import TYPE_CHECKING, Any

from agentcli.frontends.tui.outgoing import Blocks, NotSent, Prepared

if TYPE_CHECKING:
    from agentcli.engine.events import Event
    from agentcli.frontends.tui.app import AgentApp
    from agentcli.frontends.tui.widgets.permission_prompt import PermissionPrompt
    from agentcli.permissions.question import PermissionQuestion
    from agentcli.permissions.types import PermissionAnswer

NOT_SENT = "Interrupted before the message was sent: nothing went to the model."


class _Shown:
    """A turn in the app, as the driver's front end (frontends/driver): each event shown
    by EventsView, which puts a question's prompt up; the person's answer there is the
    answer."""

    def __init__(self, app: AgentApp) -> None:
        self.app = app

    async def show(self, event: Event) -> None:
        from agentcli.engine.events import AssistantMessage, TurnEnded

        await self.app.view.show(event)
        if isinstance(event, AssistantMessage | TurnEnded):
            self.app.refresh_status()

    async def answer(self, question: PermissionQuestion) -> PermissionAnswer:
        # The prompt answers the question itself; shielded, so the driver giving up
        # on this wait (the question closed, the turn over) never withdraws it.
        return await asyncio.shield(question.reply())


class TurnRunner:
    def __init__(self, app: AgentApp) -> None:
        self.app = app

    def send(self, message: str | Prepared) -> None:
        """Start the message's turn, or queue it while starting up or while a turn runs."""
        app = self.app
        if not app.ready or app.busy:
            app.queue.append(message)
            if app.provider_error:
                app.note(app.provider_error, "error")
            else:
                app.note("Queued: it will be sent when agentcli is ready.", "queued")
            return
        app.turn_worker = app.run_worker(self._run(message), group="turn", exit_on_error=False)

    def drain_queue(self) -> None:
        app = self.app
        if app.queue and app.ready and not app.busy:
            self.send(app.queue.pop(0))

    async def _run(self, message: str | Prepared) -> None:
        with message.scope() if isinstance(message, Prepared) else nullcontext():
            await self._turn(message)

    async def _turn(self, message: str | Prepared) -> None:
        from agentcli.frontends.driver import drive

        app = self.app
        text = message.text if isinstance(message, Prepared) else message
        app.conversation.add_user(text)
        app.status_line.start()
        blocks = list(app.pending_context)
        app.pending_context.clear()
        app.making_message = True
        try:
            content = await self._content(message, blocks)
        except NotSent as problem:
            app.note(str(problem), "error")
            self._turn_over()
            return
        except asyncio.CancelledError:  # Esc while reading attachments or fetching a prompt
            app.note(NOT_SENT, "interrupted")
            self._turn_over()
            raise
        finally:
            app.making_message = False
        try:
            await drive(app.built_engine(), content, _Shown(app))
        except Exception as exc:
            await app.conversation.finish_answer()
            app.note(f"Error: {type(exc).__name__}: {exc}", "error")
        finally:
            self._turn_over()

    def _turn_over(self) -> None:
        self.app.status_line.stop()
        self.app.refresh_status()
        self.app.call_later(self.drain_queue)

    async def _content(self, message: str | Prepared, blocks: Blocks) -> Any:
        """What goes to the model: the blocks before it (`!` output), then the
        message's own content, made now."""
        if isinstance(message, Prepared):
            return [*blocks, *await message.make()]
        blocks = [*blocks, *await self._attachments(message)]
        full = self.app.prompt.pastes.expand(message)  # the conversation shows it folded
        return [*blocks, {"type": "text", "text": full}] if blocks else full

    async def _attachments(self, text: str) -> Blocks:
        """The files (`@path`) and MCP resources (`@server:uri`) the text mentions."""
        from agentcli.frontends.tui.attachments import attach, find_mentions

        if not find_mentions(text):
            return []
        app = self.app
        blocks, notes = await asyncio.to_thread(attach, text, app.cwd)
        if app.mcp_link is not None:
            resources, more = await app.mcp_link.attach(text)
            blocks, notes = blocks + resources, notes + more
        for line in notes:
            app.note(line, "attachment")
        return blocks

    async def run_shell(self, command: str) -> None:
        """`!command`: run it here; its output goes with the next message."""
        from agentcli.frontends.tui.shell_mode import ShellRun, context_block
        from agentcli.tools.display import CommandDisplay

        app = self.app
        pane = app.conversation.add_tool(f"shell-{time.monotonic_ns()}", "Bash", {}, "! " + command)
        pane.set_state("running")
        env = app.engine.workspace.env if app.engine is not None else None
        app.shell_run = run = ShellRun(command, app.cwd, env)
        try:
            output, code = await run.run(pane.add_output)
        except OSError as exc:
            output, code = str(exc), 127
        finally:
            app.shell_run = None
        status = "interrupted" if code is None else ("done" if code == 0 else "failed")
        pane.finish(status, {"content": output}, CommandDisplay(exit_code=code))
        app.pending_context.append(context_block(command, output, code))

    # -- permission questions ---------------------------------------------------------

    def ask_permission(self, question: PermissionQuestion) -> None:
        """Show a question in place of the input. It goes when it closes: answered by
        the prompt, or withdrawn by the engine when the turn stops."""
        from agentcli.frontends.tui.widgets.permission_prompt import GUARD_S, PermissionPrompt

        app = self.app
        guard = GUARD_S if app.permission_guard_s is None else app.permission_guard_s
        prompt = PermissionPrompt(question, guard_s=guard)
        app.permission_prompt = prompt
        app.prompt.display = False
        app.status_line.question_opened(question)
        app.query_one("#permission-area").mount(prompt)
        question.on_close(partial(self._question_closed, prompt))

    def _question_closed(self, prompt: PermissionPrompt) -> None:
        prompt.remove()
        app = self.app
        app.status_line.question_closed(prompt.question)
        if app.permission_prompt is prompt:  # no newer question took its place
            app.permission_prompt = None
            app.prompt.display = True
            app.prompt.focus()
