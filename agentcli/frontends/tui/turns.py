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

The runner owns the turn's state: the queue, the turn's worker, the `!`
command running and its output for the next message, whether the message is
still being made, the open permission question. Others ask it (`busy`,
`interrupt()`, `wait()`); nobody else sets them. It gets a `TurnHost`: the
widgets it shows the turn in and the few things of the app it calls.
"""

from __future__ import annotations

import asyncio
import time
from contextlib import nullcontext
from functools import partial
from typing import TYPE_CHECKING, Any, Protocol

from agentcli.commands.outgoing import Blocks, NotSent, Prepared
from agentcli.frontends.tui.host import RunsWorkers
from agentcli.frontends.tui.idle import IdleNotifier
from agentcli.frontends.tui.prompt_images import PromptWithImages

if TYPE_CHECKING:
    from textual.worker import Worker

    from agentcli.engine.events import Event, ToolStatus
    from agentcli.frontends.tui.events_view import EventsView
    from agentcli.frontends.tui.shell_mode import ShellRun
    from agentcli.frontends.tui.state import AppState
    from agentcli.frontends.tui.widgets.conversation import Conversation
    from agentcli.frontends.tui.widgets.permission_prompt import PermissionPrompt
    from agentcli.frontends.tui.widgets.prompt_input import PromptInput
    from agentcli.frontends.tui.widgets.question_prompt import QuestionPrompt
    from agentcli.frontends.tui.widgets.status import StatusLine
    from agentcli.permissions.question import PermissionQuestion
    from agentcli.permissions.question_models import PermissionAnswer

NOT_SENT = "Interrupted before the message was sent: nothing went to the model."

# What a turn sends: the text typed, a prepared message, a typed prompt with its images.
Outgoing = str | Prepared | PromptWithImages


class TurnHost(RunsWorkers, Protocol):
    """What the turn runner needs of the app."""

    @property
    def state(self) -> AppState: ...
    @property
    def conversation(self) -> Conversation: ...
    @property
    def status_line(self) -> StatusLine: ...
    @property
    def prompt(self) -> PromptInput: ...
    @property
    def view(self) -> EventsView: ...
    def note(self, text: str, level: str = "info") -> None: ...
    def refresh_status(self) -> None: ...
    def call_later(self, callback: Any, *args: Any) -> Any: ...
    def set_timer(self, delay: float, callback: Any) -> Any: ...
    def query_one(self, selector: str) -> Any: ...


class _Shown:
    """A turn in the app, as the driver's front end (frontends/driver): each event shown
    by EventsView, which puts a question's prompt up; the person's answer there is the
    answer."""

    def __init__(self, app: TurnHost) -> None:
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
    def __init__(self, app: TurnHost, first_prompt: str | None = None) -> None:
        """`first_prompt`: the command line's, sent first once the session is open."""
        self.app = app
        self.queue: list[Outgoing] = [first_prompt] if first_prompt else []
        self.pending_context: Blocks = []  # `!` output for the next message
        self.worker: Worker[None] | None = None  # the turn's, once one started
        self.making_message = False  # the turn is still making its message's content
        self.shell_run: ShellRun | None = None  # the `!` command running
        # The open question: a permission's, or the model's to the person (AskUserQuestion).
        self.permission_prompt: PermissionPrompt | QuestionPrompt | None = None
        self.idle = IdleNotifier(app.set_timer)  # the Notification hook's idle_prompt

    @property
    def busy(self) -> bool:
        return self.worker is not None and not self.worker.is_finished

    def send(self, message: Outgoing) -> None:
        """Start the message's turn, or queue it while starting up or while a turn runs."""
        app = self.app
        self.idle.disarm()
        if not app.state.ready or self.busy:
            self.queue.append(message)
            if app.state.provider_error:
                app.note(app.state.provider_error, "error")
            else:
                app.note("Queued: it will be sent when agentcli is ready.", "queued")
            return
        self.worker = app.run_worker(self._run(message), group="turn", exit_on_error=False)

    def drain_queue(self) -> None:
        if self.queue and self.app.state.ready and not self.busy:
            self.send(self.queue.pop(0))

    def interrupt(self) -> bool:
        """Esc: stop the question, the `!` command, the turn or the making of its
        message. True when no turn was running or being made (Esc may mean more)."""
        if self.permission_prompt is not None:
            self.permission_prompt.interrupt()
        if self.shell_run is not None:
            self.shell_run.kill()
        engine = self.app.state.engine
        if engine is not None and engine.busy:
            engine.interrupt()
            self.app.status_line.interrupting()
            return False
        if self.making_message and self.worker is not None:  # `@` files, an MCP prompt
            self.worker.cancel()
            return False
        return self.permission_prompt is None

    async def wait(self) -> None:
        """Until the turn's worker has ended (failed or cancelled: over either way)."""
        worker = self.worker
        if worker is not None and not worker.is_finished:
            try:
                await worker.wait()
            except Exception:
                pass

    async def _run(self, message: Outgoing) -> None:
        with message.scope() if isinstance(message, Prepared) else nullcontext():
            await self._turn(message)

    async def _turn(self, message: Outgoing) -> None:
        from agentcli.frontends.driver import drive

        app = self.app
        text = message if isinstance(message, str) else message.text
        app.conversation.add_user(text)
        app.status_line.start()
        blocks = list(self.pending_context)
        self.pending_context.clear()
        self.making_message = True
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
            self.making_message = False
        try:
            await drive(app.state.built_engine(), content, _Shown(app))
        except Exception as exc:
            await app.conversation.finish_answer()
            app.note(f"Error: {type(exc).__name__}: {exc}", "error")
        finally:
            self._turn_over()

    def _turn_over(self) -> None:
        self.app.status_line.stop()
        self.app.refresh_status()
        engine = self.app.state.engine
        if not self.queue and engine is not None:  # the prompt waits for the person now
            self.idle.arm(engine.hooks)
        self.app.call_later(self.drain_queue)

    async def _content(self, message: Outgoing, blocks: Blocks) -> Any:
        """What goes to the model: the blocks before it (`!` output), then the
        message's own content, made now (its images first)."""
        if isinstance(message, Prepared):
            return [*blocks, *await message.make()]
        if isinstance(message, PromptWithImages):
            blocks, message = [*blocks, *message.images], message.text
        blocks = [*blocks, *await self._attachments(message)]
        full = self.app.prompt.pastes.expand(message)  # the conversation shows it folded
        return [*blocks, {"type": "text", "text": full}] if blocks else full

    async def _attachments(self, text: str) -> Blocks:
        """The files (`@path`) and MCP resources (`@server:uri`) the text mentions."""
        from agentcli.commands.attachments import attach, find_mentions

        if not find_mentions(text):
            return []
        app = self.app
        blocks, notes = await asyncio.to_thread(attach, text, app.state.cwd)
        if app.state.mcp_link is not None:
            resources, more = await app.state.mcp_link.attach(text)
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
        engine = app.state.engine
        env = engine.workspace.env if engine is not None else None
        self.shell_run = run = ShellRun(command, app.state.cwd, env)
        try:
            output, code = await run.run(pane.add_output)
        except OSError as exc:
            output, code = str(exc), 127
        finally:
            self.shell_run = None
        status: ToolStatus = "interrupted" if code is None else ("done" if code == 0 else "failed")
        pane.finish(status, {"content": output}, CommandDisplay(exit_code=code))
        self.pending_context.append(context_block(command, output, code))

    # -- permission questions ---------------------------------------------------------

    def ask_permission(self, question: PermissionQuestion) -> None:
        """Show a question in place of the input. It goes when it closes: answered by
        the prompt, or withdrawn by the engine when the turn stops."""
        from agentcli.frontends.driver.person import person_questions
        from agentcli.frontends.tui.widgets.permission_prompt import GUARD_S, PermissionPrompt

        app = self.app
        guard = app.state.guard_s(GUARD_S)
        asked = person_questions(question.request)
        prompt: PermissionPrompt | QuestionPrompt
        if asked is not None:  # the model asks the person: its options, not a yes or no
            from agentcli.frontends.tui.widgets.question_prompt import QuestionPrompt

            prompt = QuestionPrompt(question, asked, guard_s=guard)
        else:
            prompt = PermissionPrompt(question, guard_s=guard)
        self.permission_prompt = prompt
        app.prompt.display = False
        app.status_line.question_opened(question)
        app.query_one("#permission-area").mount(prompt)
        question.on_close(partial(self._question_closed, prompt))

    def _question_closed(self, prompt: PermissionPrompt | QuestionPrompt) -> None:
        prompt.remove()
        app = self.app
        app.status_line.question_closed(prompt.question)
        if self.permission_prompt is prompt:  # no newer question took its place
            self.permission_prompt = None
            app.prompt.display = True
            app.prompt.focus()
