"""AgentApp: the interactive agent, composed of one helper per concern.

This module is the App itself: its widgets, its bindings, and the small
public surface slash commands use, their `CommandHost` (commands/host.py:
`send`, `note`, `clear_conversation`, `set_theme`, `pick_session`, ...). State has one owner each: the widgets
their own; the turn runner its queue, worker and question; the prompt flow
the completion's file list; and what several parts read, the engine first,
lives in one small typed object (frontends/tui/state.py). The helpers each get
a narrow Protocol of what they need, never the app, and none imports it:

- frontends/tui/startup.py: after the first frame, the engine, provider and MCP servers,
  built off the UI thread (only textual and our UI modules are imported before
  that frame), with the folder-trust question first where needed;
- frontends/tui/sessions.py: a new engine, its SessionStart / SessionEnd hooks, resuming;
- frontends/tui/prompt_flow.py: completions, and what a submitted prompt becomes;
- frontends/tui/turns.py: sending, running a turn, showing its events and permission
  questions;
- frontends/tui/key_actions.py: Esc, Ctrl+C, Shift+Tab;
- frontends/tui/ending.py: ending by a signal, and closing everything on the way out.

Start-up and the session switcher tell the app what happened by posting typed
messages (frontends/tui/messages.py); the handlers below hand each to its owner.
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable
from contextlib import AbstractContextManager, nullcontext
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import on
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Static

from agentcli import __version__
from agentcli.commands.file_commands import FileCommands
from agentcli.commands.outgoing import Blocks, Prepared
from agentcli.commands.registry import REGISTRY
from agentcli.frontends.tui import messages
from agentcli.frontends.tui.ending import Ending
from agentcli.frontends.tui.events_view import EventsView
from agentcli.frontends.tui.history import PromptHistory
from agentcli.frontends.tui.key_actions import KeyActions
from agentcli.frontends.tui.prompt_flow import PromptFlow
from agentcli.frontends.tui.sessions import Sessions
from agentcli.frontends.tui.startup import Startup
from agentcli.frontends.tui.state import AppState
from agentcli.frontends.tui.status_feed import StatusFeed
from agentcli.frontends.tui.themes import (
    DEFAULT_THEME,
    HIGH_CONTRAST,
    apply_theme,
    theme_files,
    theme_names,
)
from agentcli.frontends.tui.turns import TurnRunner
from agentcli.frontends.tui.widgets.completion_popup import CompletionPopup
from agentcli.frontends.tui.widgets.conversation import Conversation
from agentcli.frontends.tui.widgets.prompt_input import PromptInput
from agentcli.frontends.tui.widgets.status import CommandStatus, StatusBar, StatusLine
from agentcli.frontends.tui.widgets.todo_list import TodoPanel

if TYPE_CHECKING:
    import argparse

    from agentcli.config.untrusted import Withheld
    from agentcli.engine.query_engine import QueryEngine
    from agentcli.frontends.tui.widgets.permission_prompt import PermissionPrompt
    from agentcli.frontends.tui.widgets.question_prompt import QuestionPrompt
    from agentcli.mcp.manager import McpManager
    from agentcli.permissions.question import PermissionQuestion
    from agentcli.session.loader import LoadedSession
    from agentcli.tools.background.tasks import TaskBoard


class AgentApp(App[None]):
    CSS_PATH = [Path(__file__).parent / "app.tcss", *theme_files()]  # noqa: RUF012
    TITLE = "agentcli"
    BINDINGS = [  # noqa: RUF012
        Binding("escape", "interrupt", "Interrupt", show=False),
        Binding("ctrl+c", "ctrl_c", "Clear / quit", show=False),
        Binding("shift+tab", "cycle_mode", "Cycle mode", show=False),
        Binding("ctrl+b", "to_background", "Run in background", show=False, priority=True),
    ]

    def __init__(
        self,
        args: argparse.Namespace | None = None,
        *,
        cwd: Path | None = None,
        engine: QueryEngine | None = None,
        first_prompt: str | None = None,
        load_provider: bool = True,
        permission_guard_s: float | None = None,
        theme_name: str | None = None,
        remember_theme: bool = True,
        cursor_blink: bool = True,
    ) -> None:
        super().__init__()
        self.state = AppState(
            cwd=(cwd or Path.cwd()).resolve(),
            permission_guard_s=permission_guard_s,
            engine=engine,
        )
        self.remember_theme = remember_theme
        # Off for pictures of the screen (snapshots): a blinking cursor makes
        # the same screen render two ways depending on when it is captured.
        self.cursor_blink = cursor_blink
        self.registry = REGISTRY
        self.file_commands = FileCommands(self.registry)  # .agentcli/commands/*.md and others
        self.commands_loaded = False  # the command modules and files are in the registry
        self._initial_theme = theme_name
        self.theme_name = DEFAULT_THEME
        self.startup = Startup(self, args, load_provider=load_provider)
        self.turns = TurnRunner(self, first_prompt)
        self.sessions = Sessions(self, self.startup.options)
        self.prompt_flow = PromptFlow(self, self.turns.run_shell)
        self.keys = KeyActions(self, self.turns.interrupt)
        self.ending = Ending(
            self,
            interrupt=self.action_interrupt,
            wait_for_turn=self.turns.wait,
            close_session=self.sessions.close_session,
        )
        self.status_feed = StatusFeed(self)  # the `statusLine` command, if the settings name one
        self.register_theme(HIGH_CONTRAST)

    def get_driver_class(self) -> Any:
        """Textual's driver for this terminal, made to survive the terminal closing."""
        driver = super().get_driver_class()
        if driver.__module__ == "textual.drivers.linux_driver":
            from agentcli.frontends.tui.terminal_driver import SurvivingLinuxDriver

            return SurvivingLinuxDriver
        return driver

    # -- layout -----------------------------------------------------------------

    def compose(self) -> ComposeResult:
        self.conversation = Conversation(id="conversation")
        self.status_line = StatusLine(id="status-line")
        self.popup = CompletionPopup(id="completion")
        self.prompt = PromptInput(id="prompt")
        self.prompt.cursor_blink = self.cursor_blink
        self.status_bar = StatusBar(id="status-bar")
        self.command_status = CommandStatus(id="status-command")
        self.todo_panel = TodoPanel(id="todo-panel")
        self.view = EventsView(
            self.conversation, self.status_line, self.ask_permission, todos=self.todo_panel
        )
        self.bottom = Vertical(id="bottom")
        yield self.conversation
        with self.bottom:
            yield self.todo_panel
            yield self.status_line
            yield self.popup
            yield Vertical(id="permission-area")
            yield self.prompt
            yield self.status_bar
            yield self.command_status

    def banner_text(self) -> Text:
        text = Text()
        text.append("✻ agentcli", style="bold")
        text.append(f" v{__version__}\n")
        text.append(f"  {self.cwd}\n", style="dim")
        text.append(f"  model: {self.model_name()}", style="dim")
        return text

    def model_name(self) -> str:
        if self.engine is not None:
            return self.engine.config.model
        model = getattr(self.startup.args, "model", None)
        return str(model or os.environ.get("AGENTCLI_MODEL") or "…")

    def on_mount(self) -> None:
        self.ending.follow_signals()
        self._apply_initial_theme()
        self.banner = Static(self.banner_text(), id="banner")
        self.conversation.add_widget(self.banner)
        self.prompt.prompt_history = PromptHistory(None)  # the project's comes at start-up
        self.prompt.focus()
        self.refresh_status()
        self.screen.screen_layout_refresh_signal.subscribe(self, self._fit_question)
        self.call_after_refresh(self.startup.after_first_frame)

    async def on_unmount(self) -> None:
        await self.ending.close()
        await self.status_feed.aclose()

    def _apply_initial_theme(self) -> None:
        name = self._initial_theme
        if name is None and self.remember_theme:
            from agentcli.frontends.tui.settings import load_theme

            name, problem = load_theme()
            if problem:
                self.call_after_refresh(self.note, problem, "warning")
        if name not in theme_names():
            name = DEFAULT_THEME
        self.theme_name = name
        apply_theme(self, name)

    def theme_names(self) -> list[str]:
        return theme_names()

    def set_theme(self, name: str) -> str | None:
        """Switch and remember the theme; returns a problem message or None."""
        if name not in theme_names():
            return f"Unknown theme {name!r}; themes: {', '.join(theme_names())}"
        self.theme_name = name
        apply_theme(self, name)
        if self.remember_theme:
            from agentcli.frontends.tui.settings import save_theme

            return save_theme(name)
        return None

    # -- the engine -------------------------------------------------------------------

    @property
    def engine(self) -> QueryEngine | None:
        return self.state.engine

    @property
    def cwd(self) -> Path:
        return self.state.cwd

    @property
    def provider_error(self) -> str | None:
        return self.state.provider_error

    @property
    def ready(self) -> bool:
        return self.state.ready

    def built_engine(self) -> QueryEngine:
        """The engine, where the flow guarantees it is built (after `engine_built`)."""
        return self.state.built_engine()

    # -- what start-up and the session switcher report (frontends/tui/messages.py) -----

    @on(messages.Note)
    def _note_posted(self, message: messages.Note) -> None:
        self.note(message.text, message.level)

    @on(messages.CommandsLoaded)
    async def _commands_loaded(self, message: messages.CommandsLoaded) -> None:
        """The command modules are in: the command files join them (read from the
        session's places, if its engine is built), then what waited for them runs."""
        for problem in message.problems:
            self.note(f"Could not load commands: {problem}", "warning")
        places = self.engine.places if self.engine is not None else None
        for problem in self.file_commands.load(self.state.cwd, places):
            self.note(f"Custom command: {problem}", "warning")
        self.commands_loaded = True
        await self.prompt_flow.commands_ready()

    @on(messages.HistoryLoaded)
    def _history_loaded(self, message: messages.HistoryLoaded) -> None:
        """The project's history; what was sent before it was read joins it."""
        for sent in self.prompt.prompt_history.entries if self.prompt.prompt_history else []:
            message.history.add(sent)
        self.prompt.prompt_history = message.history

    @on(messages.FilesListed)
    def _files_listed(self, message: messages.FilesListed) -> None:
        self.prompt_flow.files = message.files
        self.prompt_flow.update_completion()  # an `@` typed before the list was ready

    @on(messages.EngineBuilt)
    def _engine_built(self, message: messages.EngineBuilt) -> None:
        self.sessions.engine_built(message.engine)
        # The session's setting sources and plugins say which command files there are
        # (read with the command modules, once they are in: `_commands_loaded`).
        if self.commands_loaded:
            for problem in self.file_commands.follow(message.engine.places, self.state.cwd):
                self.note(f"Custom command: {problem}", "warning")
        self._start_editor_mode()  # the settings are known now, before the model is

    @on(messages.ResumedTail)
    def _resumed_tail(self, message: messages.ResumedTail) -> None:
        self.sessions.show_in_turn(partial(self.sessions.show_tail, message.tail, message.drawn))

    @on(messages.TailFinished)
    def _tail_finished(self) -> None:
        self.conversation.start_fill()

    @on(messages.ResumedAtStart)
    def _resumed_at_start(self, message: messages.ResumedAtStart) -> None:
        self.sessions.show_in_turn(partial(self.sessions.show_resumed, message.loaded))

    @on(messages.PickSession)
    async def _pick_session(self) -> None:
        await self.sessions.pick_session()

    @on(messages.ProviderLoaded)
    def _provider_loaded(self, message: messages.ProviderLoaded) -> None:
        self.built_engine().connect(message.provider)
        self.sessions.engine_ready()

    @on(messages.ProviderFailed)
    def _provider_failed(self, message: messages.ProviderFailed) -> None:
        self.state.provider_error = message.message
        self.note(message.message, "error")
        self.refresh_status()

    @on(messages.EngineReady)
    def _engine_ready(self) -> None:
        self.sessions.engine_ready()

    def _start_editor_mode(self) -> None:
        """`"editorMode": "vim"` in the settings: vim keys on from the start."""
        from agentcli.wiring.layered import layered

        settings = self.engine.settings if self.engine is not None else None
        found = layered(settings, "editorMode") if settings is not None else None
        if found is not None and found.value == "vim" and self.prompt.vim is None:
            self.prompt.set_vim(True)

    def toggle_vim(self) -> bool:
        """`/vim`: vim keys on or off in the prompt; whether they are on now."""
        self.prompt.set_vim(self.prompt.vim is None)
        return self.prompt.vim is not None

    @on(messages.McpLoaded)
    def _mcp_loaded(self, message: messages.McpLoaded) -> None:
        self.run_worker(self.startup.start_mcp(message.manager), group="mcp", exit_on_error=False)

    @on(messages.SessionOpened)
    def _session_opened(self) -> None:
        self.turns.drain_queue()

    # -- notes and status -------------------------------------------------------

    def note(self, text: str, level: str = "info") -> None:
        self.conversation.add_note(text, level)

    def markdown_note(self, text: str) -> None:
        self.conversation.add_markdown_note(text)

    def refresh_status(self) -> None:
        state = ""
        if self.provider_error:
            state = "no model connection"
        elif not self.ready:
            state = "starting…"
        if self.engine is None:
            self.status_bar.show_summary(f"{self.model_name()} · {state}")
        else:
            self.status_bar.refresh_from(self.engine, provider_state=state)
            self.status_feed.update(self.engine)

    # -- the prompt (frontends/tui/prompt_flow.py) -------------------------------------

    def on_text_area_changed(self, event: PromptInput.Changed) -> None:
        if event.text_area is self.prompt:
            self.conversation.person_typed()  # a resumed history fills in after the typing
            self.prompt_flow.update_completion()
            if self.prompt.text:  # typing: a second Esc or Ctrl+C is no longer coming
                self.keys.disarm()

    async def on_prompt_input_navigate(self, event: PromptInput.Navigate) -> None:
        await self.prompt_flow.navigate(event.key)

    async def on_prompt_input_scroll_conversation(
        self, event: PromptInput.ScrollConversation
    ) -> None:
        await self.conversation.scroll_history(event.key)

    def on_prompt_input_notice(self, event: PromptInput.Notice) -> None:
        self.note(event.text, event.level)

    async def on_prompt_input_submitted(self, event: PromptInput.Submitted) -> None:
        await self.prompt_flow.submit(event.text)

    # -- turns (frontends/tui/turns.py) ------------------------------------------------

    def send(
        self,
        text: str,
        *,
        make: Callable[[], Awaitable[Blocks]] | None = None,
        scope: Callable[[], AbstractContextManager[Any]] = nullcontext,
    ) -> None:
        """Send a message, or queue it while starting up or while a turn runs.
        `make`: gives the message's content when its turn starts (it is shown as
        `text`); `scope`: around that turn; see commands/outgoing.py."""
        self.turns.send(text if make is None else Prepared(text, make, scope))

    def send_with_images(self, text: str, images: Blocks) -> None:
        """A typed prompt and the images attached to it (frontends/tui/prompt_images.py)."""
        from agentcli.frontends.tui.prompt_images import PromptWithImages

        self.turns.send(PromptWithImages(text, images))

    @property
    def busy(self) -> bool:
        return self.turns.busy

    @property
    def permission_prompt(self) -> PermissionPrompt | QuestionPrompt | None:
        """The open permission question, if one is (the turn runner's)."""
        return self.turns.permission_prompt

    @property
    def history(self) -> PromptHistory | None:
        """The prompt's history (the prompt owns it; the project's once start-up read it)."""
        return self.prompt.prompt_history

    def ask_permission(self, question: PermissionQuestion) -> None:
        """Show a question in place of the input until it closes (frontends/tui/turns.py)."""
        self.turns.ask_permission(question)

    def _fit_question(self, screen: Any) -> None:
        """After each layout of the main screen: an open question may use all of the
        screen the rest of the bottom leaves (not only 70% of it), and fits in it. The
        conversation keeps one row: Textual never gives its `1fr` less, and a bottom
        taller than the rest would make the whole screen scroll."""
        bottom = self.bottom  # kept: a query here would walk the whole DOM each layout
        if not bottom.is_attached:  # the screen is being taken down (a layout after it emptied)
            return
        question = self.permission_prompt
        bottom.set_class(question is not None, "-asking")
        if question is None or not question.is_mounted:
            return
        others = sum(
            child.outer_size.height
            for child in bottom.children
            if child.display and child.id != "permission-area"
        )
        question.fit(screen.size.height - others - 1, screen.size.width)

    # -- sessions (frontends/tui/sessions.py) and the trust question -------------------

    async def pick_session(self) -> None:
        """`--resume` / `/resume` without an id: the picker of this folder's sessions."""
        await self.sessions.pick_session()

    async def resume_session(self, loaded: LoadedSession) -> None:
        """Switch to an earlier session: a fresh engine on its messages, its history on screen."""
        await self.sessions.resume_session(loaded)

    def show_trust_question(self, items: list[Withheld], on_answer: Callable[[bool], None]) -> None:
        """The trust question over the app; `on_answer(trusted: bool)` gets the answer."""
        from agentcli.frontends.tui.screens.trust_question import GUARD_S, TrustQuestion

        guard = self.state.guard_s(GUARD_S)

        def answered(trusted: bool | None) -> None:
            on_answer(trusted is True)  # the screen gives a bool; "no" is the safe reading

        self.push_screen(TrustQuestion(self.cwd, items, guard_s=guard), callback=answered)

    def open_rewind(self) -> None:
        """`/rewind`, Esc Esc: go back to before a prompt (frontends/tui/rewind_flow.py)."""
        from agentcli.frontends.tui.rewind_flow import run_rewind

        self.keys.disarm()  # its hint goes as the rewind opens
        rewind = run_rewind(self, self.turns.wait)
        self.run_worker(rewind, group="rewind", exclusive=True, exit_on_error=False)

    def show_mcp_servers(self, manager: McpManager) -> None:
        """`/mcp`: the servers' screen (frontends/tui/screens/mcp_servers.py)."""
        from agentcli.frontends.tui.screens.mcp_servers import McpServersScreen

        self.push_screen(McpServersScreen(manager, self.cwd))

    def show_tasks(self, board: TaskBoard) -> None:
        """`/tasks`: the background tasks' screen (frontends/tui/screens/tasks.py)."""
        from agentcli.frontends.tui.screens.tasks import TasksScreen

        self.push_screen(TasksScreen(board))

    def last_answer(self) -> str:
        """The last answer's markdown, as the model wrote it (`/copy`)."""
        return self.conversation.last_answer_source

    def close_popup(self) -> None:
        self.prompt_flow.close_popup()

    async def clear_conversation(self) -> None:
        self.turns.pending_context.clear()  # `!command` output belonged to what is cleared
        self.todo_panel.show_list(())
        await self.conversation.clear()
        self.banner = Static(self.banner_text(), id="banner")
        self.conversation.add_widget(self.banner)

    # -- keys (frontends/tui/key_actions.py) -------------------------------------------

    def action_interrupt(self) -> None:
        self.keys.interrupt()

    def action_ctrl_c(self) -> None:
        self.keys.ctrl_c()

    def action_cycle_mode(self) -> None:
        self.keys.cycle_mode()

    def action_to_background(self) -> None:
        self.keys.to_background()
