"""AgentApp: the interactive agent.

Start-up order is the point of this module: only textual and our UI modules
are imported before the first frame; the engine is built and the provider
loaded in a thread worker after the screen is up. A message sent before then
waits in a queue and goes as soon as the provider is ready. In a folder whose
settings would enable something and that the person has not trusted yet, the
loader first asks (screens/trust_question.py) and builds the engine only with
the answer, so nothing from those settings takes effect before it.

A turn runs in an async worker that feeds engine events to EventsView. Esc
interrupts it through `engine.interrupt()`; the engine guarantees a valid
transcript, so the next message simply continues. A permission question
arrives as one of those events: the app shows it in place of the input and
the prompt answers it (permissions/question.py).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from contextlib import AbstractContextManager, nullcontext
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Static

from agentcli import __version__
from agentcli.commands.file_commands import FileCommands
from agentcli.commands.registry import REGISTRY, CommandContext, parse_command_line
from agentcli.ui.completers import command_completions, file_completions, resource_completions
from agentcli.ui.events_view import EventsView
from agentcli.ui.history import PromptHistory
from agentcli.ui.outgoing import Blocks, NotSent, Prepared
from agentcli.ui.themes import (
    DEFAULT_THEME,
    HIGH_CONTRAST,
    apply_theme,
    theme_files,
    theme_names,
)
from agentcli.ui.widgets.completion_popup import CompletionPopup
from agentcli.ui.widgets.conversation import Conversation
from agentcli.ui.widgets.prompt_input import PromptInput
from agentcli.ui.widgets.status import StatusBar, StatusLine
from agentcli.ui.widgets.todo_list import TodoPanel

if TYPE_CHECKING:
    from agentcli.engine.query_engine import QueryEngine
    from agentcli.mcp.manager import McpManager
    from agentcli.permissions.question import PermissionQuestion
    from agentcli.ui.mcp_link import McpLink
    from agentcli.ui.widgets.permission_prompt import PermissionPrompt

MODE_CYCLE = ["default", "acceptEdits", "plan"]
COMMAND_PUNCTUATION = str.maketrans("", "", "-_:")  # in a command's name (`/mcp__s__p`)
QUIT_WINDOW_S = 2.0
REWIND_WINDOW_S = 2.0  # Esc twice on an empty prompt within this opens the rewind
# A resumed conversation shows its latest messages; the rest stay in the transcript.
RESUMED_MESSAGES_SHOWN = 200
SESSION_END_AFTER_SIGNAL_S = 5.0  # SessionEnd hooks' time when a signal ends the app
NOT_SENT = "Interrupted before the message was sent: nothing went to the model."


class AgentApp(App[None]):
    CSS_PATH = [Path(__file__).parent / "app.tcss", *theme_files()]  # noqa: RUF012
    TITLE = "agentcli"
    BINDINGS = [  # noqa: RUF012
        Binding("escape", "interrupt", "Interrupt", show=False),
        Binding("ctrl+c", "ctrl_c", "Clear / quit", show=False),
        Binding("shift+tab", "cycle_mode", "Cycle mode", show=False),
    ]

    def __init__(
        self,
        args: Any = None,
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
        self.args = args
        self.cwd = (cwd or Path.cwd()).resolve()
        self.engine = engine
        self.first_prompt = first_prompt
        self.load_provider = load_provider
        self.permission_guard_s = permission_guard_s
        self.remember_theme = remember_theme
        # Off for pictures of the screen (snapshots): a blinking cursor makes
        # the same screen render two ways depending on when it is captured.
        self.cursor_blink = cursor_blink
        self.provider_error: str | None = None
        self.queue: list[str | Prepared] = []
        self.pending_context: list[dict[str, Any]] = []
        self.registry = REGISTRY
        self.file_commands = FileCommands(self.registry)  # .agentcli/commands/*.md and others
        self.history = PromptHistory(None)
        self.files: list[str] | None = None
        self.commands_loaded = False
        self.shell_run: Any = None
        self.permission_prompt: PermissionPrompt | None = None
        self.mcp_link: McpLink | None = None  # once the engine has MCP servers
        self._last_ctrl_c = 0.0
        self._last_escape = 0.0
        # SessionStart hooks ran for this engine / are running (prompts wait for them).
        self._session_opened = False
        self._opening_session = False
        self._initial_theme = theme_name
        self.theme_name = DEFAULT_THEME
        self.turn_worker: Any = None
        self.making_message = False  # the turn is still making its message's content
        self.exit_signal: int | None = None  # SIGTERM / SIGHUP, once one arrived
        self.trusted: bool | None = None  # the answer to the trust question; None: not asked
        self._undo_signals: Any = None
        self.register_theme(HIGH_CONTRAST)

    def get_driver_class(self) -> Any:
        """Textual's driver for this terminal, made to survive the terminal closing."""
        driver = super().get_driver_class()
        if driver.__module__ == "textual.drivers.linux_driver":
            from agentcli.ui.terminal_driver import SurvivingLinuxDriver

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
        self.todo_panel = TodoPanel(id="todo-panel")
        self.view = EventsView(
            self.conversation, self.status_line, self.ask_permission, todos=self.todo_panel
        )
        yield self.conversation
        with Vertical(id="bottom"):
            yield self.todo_panel
            yield self.status_line
            yield self.popup
            yield Vertical(id="permission-area")
            yield self.prompt
            yield self.status_bar

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
        import os

        return str(getattr(self.args, "model", None) or os.environ.get("AGENTCLI_MODEL") or "…")

    def on_mount(self) -> None:
        from agentcli.shutdown import TERMINATING_SIGNALS, on_signals

        self._undo_signals = on_signals(
            asyncio.get_running_loop(), TERMINATING_SIGNALS, self._terminating_signal
        )
        self._apply_initial_theme()
        self.banner = Static(self.banner_text(), id="banner")
        self.conversation.add_widget(self.banner)
        self.prompt.prompt_history = self.history
        self.prompt.focus()
        self.refresh_status()
        self.call_after_refresh(self._after_first_frame)

    async def on_unmount(self) -> None:
        """Sync and close the transcript, which releases the session for other processes;
        end the MCP servers' processes; give the signals back."""
        from agentcli.composition import finish_session

        if self.mcp_link is not None:  # no more notes or commands from the servers
            self.mcp_link.close()
        self.file_commands.clear()
        if self.engine is not None:
            left = self.exit_signal is None  # else a signal ended the app
            await self._close_session(self.engine, "prompt_input_exit" if left else "other")
            finish_session(self.engine)
            if self.engine.mcp is not None:
                await self.engine.mcp.close()
        if self._undo_signals is not None:
            self._undo_signals()

    def _apply_initial_theme(self) -> None:
        name = self._initial_theme
        if name is None and self.remember_theme:
            from agentcli.ui.settings import load_theme

            name, problem = load_theme()
            if problem:
                self.call_after_refresh(self.note, problem, "warning")
        if name not in theme_names():
            name = DEFAULT_THEME
        self.theme_name = name
        apply_theme(self, name)

    def _after_first_frame(self) -> None:
        import gc

        gc.freeze()  # start-up objects stay; later collections need not rescan them
        gc.enable()
        from agentcli.commands.registry import load_command_modules

        for problem in load_command_modules():
            self.note(f"Could not load commands: {problem}", "warning")
        for problem in self.file_commands.load(self.cwd):
            self.note(f"Custom command: {problem}", "warning")
        self.commands_loaded = True
        self._update_completion()  # a `/` typed before the commands were loaded
        self.history = PromptHistory.load(self.cwd)
        self.prompt.prompt_history = self.history
        if self.history.problem:
            self.note(self.history.problem, "warning")
        if self.engine is not None:
            self._link_mcp()
        if self.engine is None or (self.engine.provider is None and self.load_provider):
            self.run_worker(self._load_in_thread, thread=True, group="load", exit_on_error=False)
        else:
            self._engine_ready()
            self.run_worker(self._load_mcp_in_thread, thread=True, group="mcp", exit_on_error=False)
        self.run_worker(self._load_files(), group="files", exit_on_error=False)

    # -- background loading -------------------------------------------------------

    def _load_in_thread(self) -> None:
        """Build the engine, then the provider, then start the MCP servers, off the UI
        thread."""
        from agentcli.bootstrap import build_engine

        if self.engine is None:
            options = self._options()
            if self.trusted is None and self._ask_trust(options):
                return  # the answer starts the loader again
            resumed = self._resumed_at_start(options)
            engine = build_engine(options, provider=None, resumed=resumed, carry_totals=True)
            self.call_from_thread(self._engine_built, engine)
            self.call_from_thread(self._show_startup_notices)
            # (Textual's signature for call_from_thread loses a coroutine's type: ignored.)
            if resumed is not None:
                self.call_from_thread(self._show_resumed, resumed)  # type: ignore[arg-type]
            elif getattr(options, "resume", None) == "":  # `--resume` with no id: pick one
                self.call_from_thread(self.pick_session)  # type: ignore[arg-type]
        if self.load_provider:
            self._load_provider()
        else:
            self.call_from_thread(self._engine_ready)
        self._load_mcp_in_thread()

    def _load_provider(self) -> None:
        """In the loader thread: the provider, handed over."""
        from agentcli.bootstrap import make_provider
        from agentcli.providers.base import ModelError
        from agentcli.providers.tuning import ApiTuning

        tuning = ApiTuning.from_env()
        for problem in tuning.problems:  # a malformed AGENTCLI_* timing: its default is used
            self.call_from_thread(self.note, problem, "warning")
        engine = self.built_engine()
        try:
            provider = make_provider(tuning, engine.settings, engine.config.model)
        except ModelError as error:
            self.call_from_thread(self._provider_failed, error.message)
            return
        except Exception as error:  # a provider that fails to build must not kill the app
            self.call_from_thread(self._provider_failed, f"{type(error).__name__}: {error}")
            return
        self.call_from_thread(self._provider_loaded, provider)

    def _options(self) -> Any:
        from agentcli.bootstrap import Options

        options = Options.from_args(self.args, self.cwd) if self.args else Options(self.cwd)
        options.trusted = self.trusted
        return options

    def _ask_trust(self, options: Any) -> bool:
        """In the loader thread: show the trust question if this folder needs one."""
        from agentcli.bootstrap import settings_for
        from agentcli.config.trust_question import trust_question

        items = trust_question(settings_for(options), self.cwd)
        if items:
            answered = partial(self._trust_answered, items=items)
            self.call_from_thread(self.show_trust_question, items, answered)
        return bool(items)

    def show_trust_question(self, items: list[Any], on_answer: Any) -> None:
        """The trust question over the app; `on_answer(trusted: bool)` gets the answer."""
        from agentcli.ui.screens.trust_question import GUARD_S, TrustQuestion

        guard = GUARD_S if self.permission_guard_s is None else self.permission_guard_s
        self.push_screen(TrustQuestion(self.cwd, items, guard_s=guard), callback=on_answer)

    def _trust_answered(self, trusted: bool, items: list[Any]) -> None:
        self.trusted = trusted
        load = partial(self._remember_then_load, trusted, items)
        self.run_worker(load, thread=True, group="load", exit_on_error=False)

    def _remember_then_load(self, trusted: bool, items: list[Any]) -> None:
        from agentcli.config.trust_question import remember_trust

        problem = remember_trust(self.cwd, trusted, items)
        if problem:
            self.call_from_thread(self.note, problem, "warning")
        self._load_in_thread()

    def _resumed_at_start(self, options: Any) -> Any:
        """`--continue` / `--resume ID`: the session to open (in the loader thread)."""
        from agentcli.session.resume import SessionNotFound, resolve_resumed

        resume_id = getattr(options, "resume", None) or None
        continue_latest = bool(getattr(options, "continue_session", False))
        if not (resume_id or continue_latest):
            return None
        try:
            return resolve_resumed(self.cwd, continue_latest=continue_latest, resume_id=resume_id)
        except SessionNotFound as problem:
            self.call_from_thread(self.note, f"{problem}; starting a new conversation", "warning")
            return None

    async def pick_session(self) -> None:
        """`--resume` / `/resume` without an id: the picker of this folder's sessions."""
        from agentcli.session.store import list_sessions
        from agentcli.ui.screens.session_picker import SessionPicker

        sessions = await asyncio.to_thread(list_sessions, self.cwd)
        current = self.engine.session_id if self.engine is not None else None
        sessions = [s for s in sessions if s.id != current]
        if not sessions:
            self.note("No earlier conversation in this folder.")
            return
        self.push_screen(SessionPicker(sessions), callback=self._session_picked)

    async def _session_picked(self, summary: Any) -> None:
        from agentcli.session.claim import claim_session
        from agentcli.session.loader import TranscriptError

        if summary is None:
            return
        try:
            loaded = await asyncio.to_thread(claim_session, summary.path)
        except TranscriptError as problem:
            self.note(str(problem), "error")
            return
        await self.resume_session(loaded)

    async def resume_session(self, loaded: Any) -> None:
        """Switch to an earlier session: a fresh engine on its messages, its history on screen."""
        from agentcli.bootstrap import build_engine
        from agentcli.composition import finish_session

        if self.busy:
            loaded.release()
            self.note("A turn is running: press Esc first, then resume.", "warning")
            return
        old = self.engine
        provider = old.provider if old is not None else None
        mcp = old.mcp if old is not None else None  # the servers stay connected
        engine = await asyncio.to_thread(
            build_engine, self._options(), provider, loaded, carry_totals=True, mcp=mcp
        )
        if old is not None:
            await self._close_session(old, "other")
            finish_session(old)
        self._engine_built(engine)
        await self.clear_conversation()
        await self._show_resumed(loaded)
        await self._open_session()

    async def _show_resumed(self, loaded: Any) -> None:
        from agentcli.ui.history_view import render_history

        history = loaded.history
        if len(history) > RESUMED_MESSAGES_SHOWN:
            hidden = len(history) - RESUMED_MESSAGES_SHOWN
            self.note(f"… {hidden} earlier messages are in the transcript, not shown here")
            history = history[-RESUMED_MESSAGES_SHOWN:]
        engine = self.built_engine()
        await render_history(
            self.conversation, history, loaded.displays, engine.tools, engine.workspace
        )
        for notice in loaded.notices:
            self.note(notice, "warning")
        self.note(f"Resumed conversation {loaded.session_id} · {len(loaded.history)} messages")
        self.refresh_status()

    def built_engine(self) -> QueryEngine:
        """The engine, where the flow guarantees it is built (after `_engine_built`)."""
        if self.engine is None:
            raise RuntimeError("the engine is not built yet")
        return self.engine

    def _engine_built(self, engine: QueryEngine) -> None:
        self.engine = engine
        self._initial_mode = str(engine.gate.policy.mode)
        self.banner.update(self.banner_text())
        self.refresh_status()
        self._link_mcp()

    def _link_mcp(self) -> None:
        """Follow the engine's MCP servers (prompt commands, failures, `@` resources);
        a new engine may keep the same ones (ui/mcp_link.py)."""
        manager = self.built_engine().mcp
        if self.mcp_link is not None:
            if self.mcp_link.manager is manager:
                return
            self.mcp_link.close()
            self.mcp_link = None
        if manager is None or not manager.configured:
            return
        from agentcli.ui.mcp_link import McpLink

        self.mcp_link = McpLink(self, manager)

    def _load_mcp_in_thread(self) -> None:
        """Import the MCP SDK off the UI thread, then start the servers on the app's loop
        (their connections live there, beside the engine that calls them). Run after the
        provider's import, not beside it: two imports at once hold the GIL long enough
        to delay the first frame's write."""
        from agentcli.mcp.manager import load_sdk

        mcp = self.engine.mcp if self.engine is not None else None
        if mcp is None or not mcp.configured:
            return
        load_sdk()
        self.call_from_thread(self._start_mcp, mcp)  # type: ignore[arg-type]

    async def _start_mcp(self, mcp: McpManager) -> None:
        """On the app's thread: start the servers (a failure is a note: ui/mcp_link.py),
        then ask about the project's servers waiting for approval, once: an approved
        one starts when the answer comes."""
        await mcp.start()
        if self.mcp_link is not None and self.mcp_link.manager is mcp:
            self.mcp_link.ask_about_new_servers(self.permission_guard_s)

    def _show_startup_notices(self) -> None:
        """Skipped settings files, protection uncertain, the bypass warning: as on stderr."""
        from agentcli.bootstrap import engine_startup_notices

        for notice in engine_startup_notices(self.built_engine()):
            self.note(notice.text, notice.level)

    def _engine_ready(self) -> None:
        if self.engine is not None and not hasattr(self, "_initial_mode"):
            self._initial_mode = str(self.engine.gate.policy.mode)
        self.refresh_status()
        if self.first_prompt:
            prompt, self.first_prompt = self.first_prompt, None
            self.queue.insert(0, prompt)
        if self.engine is not None and not self._session_opened:
            self._opening_session = True  # the queue waits for the SessionStart hooks
            # The method, not a coroutine: none is left unawaited if the app quits first.
            # (Textual's signature cannot type an async method's result: ignored.)
            self.run_worker(
                self._open_session,  # type: ignore[arg-type]
                group="session",
                exit_on_error=False,
            )
            return
        self._drain_queue()

    async def _open_session(self) -> None:
        """SessionStart hooks, once per engine, before its first prompt goes (the context
        they print travels with that prompt, as in `-p`)."""
        engine = self.built_engine()
        self._session_opened = True
        try:
            source = "resume" if engine.messages else "startup"
            for notice in await engine.start_session(source):
                self.note(notice, "warning")
        finally:
            self._opening_session = False
            self._drain_queue()

    async def _close_session(self, engine: QueryEngine, reason: str) -> None:
        """SessionEnd hooks, when the person leaves or switches sessions (or a signal
        ends the app: then bounded, since whoever sent it is waiting)."""
        if not self._session_opened:
            return
        self._session_opened = False
        ending = engine.end_session(reason)
        if self.exit_signal is None:
            await ending
            return
        try:
            await asyncio.wait_for(ending, SESSION_END_AFTER_SIGNAL_S)
        except TimeoutError:
            pass

    def _provider_loaded(self, provider: Any) -> None:
        """On the app's thread: the loader thread built the provider; the engine gets it."""
        self.built_engine().connect(provider)
        self._engine_ready()

    def _provider_failed(self, message: str) -> None:
        self.provider_error = message
        self.note(message, "error")
        self.refresh_status()

    async def _load_files(self) -> None:
        from agentcli.ui.completers import list_project_files

        self.files = await list_project_files(self.cwd)
        self._update_completion()  # an `@` typed before the list was ready

    @property
    def ready(self) -> bool:
        engine = self.engine
        return engine is not None and engine.provider is not None and not self._opening_session

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
            self.status_bar.update(f"{self.model_name()} · {state}")
        else:
            self.status_bar.refresh_from(self.engine, provider_state=state)

    # -- input --------------------------------------------------------------------

    def on_text_area_changed(self, event: PromptInput.Changed) -> None:
        if event.text_area is self.prompt:
            self._update_completion()

    def _update_completion(self) -> None:
        text = self.prompt.text
        items = command_completions(text, self.registry)
        if not items and "@" in text:
            row, col = self.prompt.cursor_location
            offset = sum(len(line) + 1 for line in text.split("\n")[:row]) + col
            resources = self.mcp_link.resources() if self.mcp_link is not None else []
            items = resource_completions(text, offset, resources)
            items += file_completions(text, offset, self.files or [])
        self.popup.show(items)
        self.prompt.popup_open = self.popup.showing

    def on_prompt_input_navigate(self, event: PromptInput.Navigate) -> None:
        if event.key == "up":
            self.popup.move(-1)
        elif event.key == "down":
            self.popup.move(1)
        elif event.key == "escape":
            self._close_popup()
        elif event.key in ("tab", "enter"):
            self._accept_completion(submit=event.key == "enter")

    def _close_popup(self) -> None:
        self.popup.hide()
        self.prompt.popup_open = False

    def _accept_completion(self, *, submit: bool) -> None:
        choice = self.popup.selected()
        self._close_popup()
        if choice is None:
            return
        text = self.prompt.text
        new = text[: choice.start] + choice.value + text[choice.end :]
        # A command with no arguments runs on Enter, like Claude Code.
        cmd = parse_command_line(choice.value)
        if submit and cmd is not None:
            command = self.registry.get(cmd[0])
            if command is not None and not command.argument_hint:
                self.prompt.set_text("")
                self.post_message(PromptInput.Submitted(choice.value.strip()))
                return
        self.prompt.set_text(new)

    async def on_prompt_input_submitted(self, event: PromptInput.Submitted) -> None:
        text = event.text  # long pastes still folded into placeholders
        if not text.strip():
            return
        full = self.prompt.pastes.expand(text)
        self.history.add(full)
        self.prompt.set_text("")
        self._close_popup()
        command = parse_command_line(text)
        if command is not None and command[0] in self.registry:
            await self.run_command(command[0], self.prompt.pastes.expand(command[1]))
        elif command is not None and command[0].translate(COMMAND_PUNCTUATION).isalnum():
            self.note(f"Unknown command: /{command[0]} · /help lists the commands", "warning")
        elif text.startswith("!") and text[1:].strip():
            self.run_worker(self._run_shell(full[1:].strip()), group="shell", exit_on_error=False)
        else:
            self.send(text)

    async def run_command(self, name: str, args: str) -> None:
        command = self.registry.get(name)
        if command is None:
            return
        ctx = CommandContext(
            app=self,
            engine=self.engine,
            args=args,
            registry=self.registry,
            output=self.markdown_note,
            error=lambda text: self.note(text, "error"),
        )
        try:
            await command.handler(ctx)
        except Exception as exc:  # a broken command must not take the app down
            self.note(f"/{name} failed: {type(exc).__name__}: {exc}", "error")

    # -- turns --------------------------------------------------------------------

    def send(
        self,
        text: str,
        *,
        make: Callable[[], Awaitable[Blocks]] | None = None,
        scope: Callable[[], AbstractContextManager[Any]] = nullcontext,
    ) -> None:
        """Send a message, or queue it while starting up or while a turn runs.
        `make`: gives the message's content when its turn starts (it is shown as
        `text`); `scope`: around that turn; see ui/outgoing.py."""
        self._send(text if make is None else Prepared(text, make, scope))

    def _send(self, message: str | Prepared) -> None:
        if not self.ready or self.busy:
            self.queue.append(message)
            if self.provider_error:
                self.note(self.provider_error, "error")
            else:
                self.note("Queued: it will be sent when agentcli is ready.", "queued")
            return
        self.turn_worker = self.run_worker(
            self._run_turn(message), group="turn", exit_on_error=False
        )

    @property
    def busy(self) -> bool:
        return self.turn_worker is not None and not self.turn_worker.is_finished

    def _drain_queue(self) -> None:
        if self.queue and self.ready and not self.busy:
            self._send(self.queue.pop(0))

    async def _run_turn(self, message: str | Prepared) -> None:
        with message.scope() if isinstance(message, Prepared) else nullcontext():
            await self._turn(message)

    async def _turn(self, message: str | Prepared) -> None:
        from agentcli.engine.events import AssistantMessage, TurnEnded

        text = message.text if isinstance(message, Prepared) else message
        self.conversation.add_user(text)
        self.status_line.start()
        blocks = list(self.pending_context)
        self.pending_context.clear()
        self.making_message = True
        try:
            content = await self._content(message, blocks)
        except NotSent as problem:
            self.note(str(problem), "error")
            self._turn_over()
            return
        except asyncio.CancelledError:  # Esc while reading attachments or fetching a prompt
            self.note(NOT_SENT, "interrupted")
            self._turn_over()
            raise
        finally:
            self.making_message = False
        try:
            async for event in self.built_engine().submit_message(content):
                await self.view.show(event)
                if isinstance(event, AssistantMessage | TurnEnded):
                    self.refresh_status()
        except Exception as exc:
            await self.conversation.finish_answer()
            self.note(f"Error: {type(exc).__name__}: {exc}", "error")
        finally:
            self._turn_over()

    def _turn_over(self) -> None:
        self.status_line.stop()
        self.refresh_status()
        self.call_later(self._drain_queue)

    async def _content(self, message: str | Prepared, blocks: Blocks) -> Any:
        """What goes to the model: the blocks before it (`!` output), then the
        message's own content, made now."""
        if isinstance(message, Prepared):
            return [*blocks, *await message.make()]
        blocks = [*blocks, *await self._attachments(message)]
        full = self.prompt.pastes.expand(message)  # the conversation shows it folded
        return [*blocks, {"type": "text", "text": full}] if blocks else full

    async def _attachments(self, text: str) -> Blocks:
        """The files (`@path`) and MCP resources (`@server:uri`) the text mentions."""
        from agentcli.ui.attachments import attach, find_mentions

        if not find_mentions(text):
            return []
        blocks, notes = await asyncio.to_thread(attach, text, self.cwd)
        if self.mcp_link is not None:
            resources, more = await self.mcp_link.attach(text)
            blocks, notes = blocks + resources, notes + more
        for line in notes:
            self.note(line, "attachment")
        return blocks

    async def _run_shell(self, command: str) -> None:
        from agentcli.tools.display import CommandDisplay
        from agentcli.ui.shell_mode import ShellRun, context_block

        pane = self.conversation.add_tool(
            f"shell-{time.monotonic_ns()}", "Bash", {}, "! " + command
        )
        pane.set_state("running")
        env = self.engine.workspace.env if self.engine is not None else None
        self.shell_run = run = ShellRun(command, self.cwd, env)
        try:
            output, code = await run.run(pane.add_output)
        except OSError as exc:
            output, code = str(exc), 127
        finally:
            self.shell_run = None
        status = "interrupted" if code is None else ("done" if code == 0 else "failed")
        pane.finish(status, {"content": output}, CommandDisplay(exit_code=code))
        self.pending_context.append(context_block(command, output, code))

    # -- permission ---------------------------------------------------------------

    def ask_permission(self, question: PermissionQuestion) -> None:
        """Show a question in place of the input. It goes when it closes: answered by
        the prompt, or withdrawn by the engine when the turn stops."""
        from agentcli.ui.widgets.permission_prompt import GUARD_S, PermissionPrompt

        guard = GUARD_S if self.permission_guard_s is None else self.permission_guard_s
        prompt = PermissionPrompt(question, guard_s=guard)
        self.permission_prompt = prompt
        self.prompt.display = False
        self.status_line.set_verb("Waiting for permission")
        self.query_one("#permission-area").mount(prompt)
        question.on_close(partial(self._question_closed, prompt))

    def _question_closed(self, prompt: PermissionPrompt) -> None:
        prompt.remove()
        if self.permission_prompt is prompt:  # no newer question took its place
            self.permission_prompt = None
            self.prompt.display = True
            self.prompt.focus()

    # -- ending from outside ----------------------------------------------------------

    def _terminating_signal(self, signum: int) -> None:
        """SIGTERM or SIGHUP: stop the turn as Esc does (commands are killed, the
        transcript is marked), wait for it to end, then exit with 128 + signum."""
        if self.exit_signal is not None:
            return
        self.exit_signal = signum
        self.action_interrupt()
        self.run_worker(self._exit_after_turn(signum), group="shutdown", exit_on_error=False)

    async def _exit_after_turn(self, signum: int) -> None:
        from agentcli.shutdown import exit_status

        worker = self.turn_worker
        if worker is not None and not worker.is_finished:
            try:
                await worker.wait()
            except Exception:  # failed or cancelled: it is over either way
                pass
        self.exit(return_code=exit_status(signum))

    # -- actions --------------------------------------------------------------------

    def action_interrupt(self) -> None:
        if self.permission_prompt is not None:
            self.permission_prompt.interrupt()
        if self.shell_run is not None:
            self.shell_run.kill()
        if self.engine is not None and self.engine.busy:
            self.engine.interrupt()
            self.status_line.set_verb("Interrupting")
        elif self.making_message:  # reading `@` attachments, fetching an MCP prompt
            self.turn_worker.cancel()
        elif not self.prompt.text and self.permission_prompt is None:
            self._escape_on_empty_prompt()

    def _escape_on_empty_prompt(self) -> None:
        """Esc twice on an empty prompt opens the rewind; the first one says so."""
        now = time.monotonic()
        if now - self._last_escape < REWIND_WINDOW_S:
            self._last_escape = 0.0
            self.open_rewind()
        elif self.engine is not None and self.engine.prompt_ids():
            self._last_escape = now
            self.notify("Press Esc again to rewind", timeout=REWIND_WINDOW_S)

    def open_rewind(self) -> None:
        """`/rewind`, Esc Esc: go back to before a prompt (ui/rewind_flow.py)."""
        from agentcli.ui.rewind_flow import run_rewind

        self.run_worker(run_rewind(self), group="rewind", exclusive=True, exit_on_error=False)

    def action_ctrl_c(self) -> None:
        selected = self.screen.get_selected_text()
        if selected:
            self.copy_to_clipboard(selected)
            self.screen.clear_selection()
            return
        if self.prompt.text:
            self.prompt.set_text("")
            self._close_popup()
            return
        now = time.monotonic()
        if now - self._last_ctrl_c < QUIT_WINDOW_S:
            self.exit()
            return
        self._last_ctrl_c = now
        self.notify("Press Ctrl+C again to exit", timeout=QUIT_WINDOW_S)

    def action_cycle_mode(self) -> None:
        if self.engine is None:
            return
        from agentcli.permissions.types import PermissionMode

        policy = self.engine.gate.policy
        cycle = list(MODE_CYCLE)
        if getattr(self, "_initial_mode", "") == "bypassPermissions":
            cycle.append("bypassPermissions")
        current = str(policy.mode)
        index = cycle.index(current) if current in cycle else -1
        policy.mode = PermissionMode(cycle[(index + 1) % len(cycle)])
        self.refresh_status()

    def set_theme(self, name: str) -> str | None:
        """Switch and remember the theme; returns a problem message or None."""
        if name not in theme_names():
            return f"Unknown theme {name!r}; themes: {', '.join(theme_names())}"
        self.theme_name = name
        apply_theme(self, name)
        if self.remember_theme:
            from agentcli.ui.settings import save_theme

            return save_theme(name)
        return None

    async def clear_conversation(self) -> None:
        self.pending_context.clear()  # `!command` output belonged to what is cleared
        self.todo_panel.show_list(())
        await self.conversation.clear()
        self.banner = Static(self.banner_text(), id="banner")
        self.conversation.add_widget(self.banner)
