"""Start-up after the first frame: the engine, the command modules, the provider
and the MCP servers, built off the UI thread, and the prompt history read there.

The point is the order. Only textual and our UI modules are imported before
the first frame; the engine is built and the provider loaded in a thread
worker after the screen is up (a message sent before then waits in the queue).
In a folder whose settings would enable something and that the person has
not trusted yet, the loader first asks (screens/trust_question.py) and builds
the engine only with the answer, so nothing from those settings takes effect
before it. A resumed session (`--continue`, `--resume ID`) comes first of all:
its newest messages are read from the transcript's end and drawn before the
engine's modules are imported (and before that question). The command modules
are imported in the same thread after the engine (nothing slow runs on the app's
loop, so keys echo while the start goes on; the app holds a command entered
before they are in: prompt_flow.py). The MCP SDK
is imported after the provider, and its servers are started on the app's loop,
where the engine that calls them lives.

Start-up sets nothing on the app: what it finds it posts as a message
(frontends/tui/messages.py), in order, and the app gives each to its owner.
It gets a `StartupHost`: the few things of the app it reads or calls.
"""

from __future__ import annotations

import gc
import sys
import threading
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any, Protocol

from agentcli.frontends.tui import messages
from agentcli.frontends.tui.collection import collection_paused
from agentcli.frontends.tui.history import PromptHistory
from agentcli.frontends.tui.host import RunsWorkers

if TYPE_CHECKING:
    import argparse

    from textual.message import Message

    from agentcli.config.untrusted import Withheld
    from agentcli.engine.query_engine import QueryEngine
    from agentcli.frontends.tui.state import AppState
    from agentcli.mcp.manager import McpManager
    from agentcli.session.loader import LoadedSession
    from agentcli.session.tail_first import TailFirst
    from agentcli.wiring.bootstrap import Options


# How long a thread holds the interpreter before one waiting for it gets it (Python's
# default is 5 ms). The loader thread's imports and transcript parse are pure Python: each
# time the loop wakes for a key it waits for that hand-over, and an echo needs a few.
LOOP_SWITCH_S = 0.001
# How long the loader waits for the app to draw a resumed session's newest messages
# before it reads the rest anyway (the app sets the event as soon as they are drawn).
TAIL_DRAWN_WAIT_S = 3.0
# How long the listing of the project's files waits for a resumed session to be read.
RESUME_FIRST_S = 30.0


class StartupHost(RunsWorkers, Protocol):
    """What start-up needs of the app."""

    @property
    def state(self) -> AppState: ...
    def post_message(self, message: Message) -> bool: ...
    def note(self, text: str, level: str = "info") -> None: ...
    def call_from_thread(self, callback: Callable[..., Any], *args: Any) -> Any: ...
    def show_trust_question(
        self, items: list[Withheld], on_answer: Callable[[bool], None]
    ) -> None: ...


class Startup:
    def __init__(
        self, app: StartupHost, args: argparse.Namespace | None, *, load_provider: bool
    ) -> None:
        self.app = app
        self.args = args
        self.load_provider = load_provider
        self.trusted: bool | None = None  # the answer to the trust question; None: not asked
        self.commands_loading = False  # the command modules are being (or were) imported
        # `--continue` / `--resume ID`: the session claimed and its tail drawn before the
        # engine's modules load (`_open_resumed`), its whole read when the engine is built.
        self.resume_opened = False
        self.opened: TailFirst | LoadedSession | None = None
        # Set once a resumed session is read whole (or the engine's build gave up): the
        # folder's listing for `@` waits for it (`_load_files`).
        self.resume_read = threading.Event()

    def after_first_frame(self) -> None:
        gc.freeze()  # start-up objects stay; later collections need not rescan them
        gc.enable()
        sys.setswitchinterval(LOOP_SWITCH_S)  # the loop gets the interpreter back sooner
        from agentcli.providers import tls

        tls.prepare()  # the certificates load on another core while the engine is built
        app = self.app
        app.run_worker(self._load_history(), group="history", exit_on_error=False)
        engine = app.state.engine
        if engine is not None:
            app.post_message(messages.EngineBuilt(engine))
        if engine is None or (engine.provider is None and self.load_provider):
            app.run_worker(self._load_in_thread, thread=True, group="load", exit_on_error=False)
        else:
            app.post_message(messages.EngineReady())
            app.run_worker(
                self._load_commands_then_mcp, thread=True, group="mcp", exit_on_error=False
            )
        resuming = engine is None and self._resuming()
        listed = self._load_files(after=self.resume_read if resuming else None)
        app.run_worker(listed, group="files", exit_on_error=False)

    def _resuming(self) -> bool:
        """`--continue` or `--resume ID` (not the picker's `--resume`)."""
        return bool(
            getattr(self.args, "resume", None) or getattr(self.args, "continue_session", False)
        )

    def options(self) -> Options:
        """The bootstrap Options of this run: its arguments, folder and trust answer."""
        from agentcli.wiring.bootstrap import Options

        cwd = self.app.state.cwd
        options = Options.from_args(self.args, cwd) if self.args else Options(cwd)
        options.trusted = self.trusted
        options.person_answers = True  # the person answers AskUserQuestion at the prompt
        return options

    # -- in the loader thread ---------------------------------------------------------

    def _load_in_thread(self) -> None:
        """Build the engine, then load the command modules, the provider, and start the
        MCP servers, off the UI thread."""
        app = self.app
        engine = app.state.engine
        try:
            if engine is None:
                self._open_resumed()  # its newest messages first, then the engine's modules
                try:
                    engine = self._build_engine()
                finally:
                    self.resume_read.set()
        finally:
            self._load_commands()  # also when the trust question waits, or the build failed
        if engine is None:
            return  # the trust question's answer starts the loader again
        if self.load_provider:
            self._load_provider(engine)
        else:
            app.post_message(messages.EngineReady())
        self._load_mcp_in_thread(engine)

    def _build_engine(self) -> QueryEngine | None:
        """The session's engine (None: the folder's trust question is shown first)."""
        from agentcli.wiring.bootstrap import build_engine

        app = self.app
        options = self.options()
        if self.trusted is None and self._ask_trust(options):
            return None
        resumed = self._resumed_at_start()
        engine = build_engine(options, provider=None, resumed=resumed, carry_totals=True)
        app.post_message(messages.EngineBuilt(engine))
        if resumed is not None:  # before any note: what the tail showed may be redrawn
            app.post_message(messages.ResumedAtStart(resumed))
        elif getattr(options, "resume", None) == "":  # `--resume` with no id: pick one
            app.post_message(messages.PickSession())
        self._show_startup_notices(engine)
        return engine

    def _load_commands(self) -> None:
        """Import the command modules (they register their commands), once, here in the
        loader thread: the imports take the interpreter for a long moment, which on the
        app's loop held every key typed meanwhile. After the engine's build, which
        imports most of what they do. The app reads the project's command files and
        takes the commands in when it gets CommandsLoaded (app.py)."""
        from agentcli.commands.registry import load_command_modules

        if self.commands_loading:
            return
        self.commands_loading = True
        problems = load_command_modules()
        self.app.post_message(messages.CommandsLoaded(problems))

    def _load_commands_then_mcp(self) -> None:
        """The engine was given (and has what it needs): the commands, then the MCP SDK,
        one import after the other (two threads importing at once can meet in a
        package's import lock)."""
        self._load_commands()
        self._load_mcp_in_thread()

    def _load_provider(self, engine: QueryEngine) -> None:
        """The provider, handed over to the app's thread."""
        from agentcli.providers.base import ModelError
        from agentcli.providers.tuning import ApiTuning
        from agentcli.wiring.bootstrap import make_provider

        app = self.app
        tuning = ApiTuning.from_env()
        for problem in tuning.problems:  # a malformed AGENTCLI_* timing: its default is used
            app.post_message(messages.Note(problem, "warning"))
        try:
            provider = make_provider(tuning, engine.settings, engine.config.model)
        except ModelError as error:
            app.post_message(messages.ProviderFailed(error.message))
            return
        except Exception as error:  # a provider that fails to build must not kill the app
            app.post_message(messages.ProviderFailed(f"{type(error).__name__}: {error}"))
            return
        app.post_message(messages.ProviderLoaded(provider))

    def _ask_trust(self, options: Options) -> bool:
        """Show the trust question if this folder needs one."""
        from agentcli.config.trust_question import trust_question
        from agentcli.wiring.bootstrap import settings_for

        items = trust_question(settings_for(options), self.app.state.cwd)
        if items:
            answered = partial(self._trust_answered, items=items)
            self.app.call_from_thread(self.app.show_trust_question, items, answered)
        return bool(items)

    def _trust_answered(self, trusted: bool, items: list[Withheld]) -> None:
        self.trusted = trusted
        load = partial(self._remember_then_load, trusted, items)
        self.app.run_worker(load, thread=True, group="load", exit_on_error=False)

    def _remember_then_load(self, trusted: bool, items: list[Withheld]) -> None:
        from agentcli.config.trust_question import remember_trust

        problem = remember_trust(self.app.state.cwd, trusted, items)
        if problem:
            self.app.post_message(messages.Note(problem, "warning"))
        self._load_in_thread()

    def _open_resumed(self) -> None:
        """`--continue` / `--resume ID`: claim the session and have its newest messages
        drawn from the transcript's tail (session/tail_first.py), once, before the
        engine's modules are imported: importing them is a fifth of a second that a
        plain start spends after its first frame too. A transcript is the person's own
        record, so it is shown before a folder's trust question, if one comes; nothing
        from the project's settings takes part in drawing it."""
        from agentcli.session.loader import TranscriptError
        from agentcli.session.resume import SessionNotFound, resumed_path
        from agentcli.session.tail_first import TailFirst, open_tail_first

        if self.resume_opened:
            return
        self.resume_opened = True
        resume_id = getattr(self.args, "resume", None) or None
        continue_latest = bool(getattr(self.args, "continue_session", False))
        if not (resume_id or continue_latest):
            return
        try:
            path = resumed_path(
                self.app.state.cwd, continue_latest=continue_latest, resume_id=resume_id
            )
            self.opened = open_tail_first(path) if path is not None else None
        except (SessionNotFound, TranscriptError) as problem:
            self._not_resumed(problem)
            return
        if isinstance(self.opened, TailFirst):
            self._show_tail(self.opened.tail)

    def _resumed_at_start(self) -> LoadedSession | None:
        """The session `_open_resumed` opened, whole: the bytes in front of its tail read
        now, the engine built on it (None: not resuming, or it could not be read)."""
        from agentcli.session.loader import TranscriptError
        from agentcli.session.tail_first import TailFirst

        opened, self.opened = self.opened, None
        if not isinstance(opened, TailFirst):
            return opened  # None, or a fork of a session another process holds, loaded
        try:
            # The session's history lives on: later collections skip it.
            with collection_paused(freeze=True):
                loaded = opened.complete()
        except TranscriptError as problem:
            self._not_resumed(problem)
            return None
        return loaded

    def _not_resumed(self, problem: Exception) -> None:
        self.app.post_message(messages.Note(f"{problem}; starting a new conversation", "warning"))

    def _show_tail(self, tail: LoadedSession) -> None:
        """Have the app draw the newest messages, prepared here (history_view.py
        `prepare_tail`), and wait (a while at most) until it has: reading the rest
        meanwhile would only slow that frame down. What the frame did not need comes
        right after it (`finish_tail`), and only then are the items above it built
        (`TailFinished`): their first build would do part of that work on the loop."""
        import agentcli.frontends.tui.widgets.streaming_markdown  # noqa: F401  (answers need it)
        from agentcli.frontends.tui.history_view import finish_tail, prepare_tail

        drawn = threading.Event()
        prepared = prepare_tail(tail, self.app.state.cwd)
        self.app.post_message(messages.ResumedTail(prepared, drawn))
        drawn.wait(TAIL_DRAWN_WAIT_S)
        finish_tail(prepared)
        self.app.post_message(messages.TailFinished())

    def _load_mcp_in_thread(self, engine: QueryEngine | None = None) -> None:
        """Import the MCP SDK off the UI thread, then start the servers on the app's loop
        (their connections live there, beside the engine that calls them). Run after the
        provider's import, not beside it: two imports at once hold the GIL long enough
        to delay the first frame's write."""
        from agentcli.mcp.manager import load_sdk

        engine = engine or self.app.state.engine
        mcp = engine.mcp if engine is not None else None
        if mcp is None or not mcp.configured:
            return
        load_sdk()
        self.app.post_message(messages.McpLoaded(mcp))

    # -- on the app's thread ----------------------------------------------------------

    async def start_mcp(self, mcp: McpManager) -> None:
        """Start the servers (a failure is a note: frontends/tui/mcp/link.py), then ask about the
        project's servers waiting for approval, once: an approved one starts when the
        answer comes."""
        await mcp.start()
        link = self.app.state.mcp_link
        if link is not None and link.manager is mcp:
            link.ask_about_new_servers(self.app.state.permission_guard_s)

    def _show_startup_notices(self, engine: QueryEngine) -> None:
        """Skipped settings files, protection uncertain, the bypass warning: as on stderr."""
        from agentcli.wiring.bootstrap import engine_startup_notices

        for notice in engine_startup_notices(engine):
            self.app.post_message(messages.Note(notice.text, notice.level))

    async def _load_history(self) -> None:
        """The project's prompt history (Up in the prompt), read off the loop: the file
        only grows."""
        import asyncio

        history = await asyncio.to_thread(PromptHistory.load, self.app.state.cwd)
        self.app.post_message(messages.HistoryLoaded(history))
        if history.problem:
            self.app.note(history.problem, "warning")

    async def _load_files(self, after: threading.Event | None = None) -> None:
        """The project's files, for `@` completion; after a resumed session is read
        (`after`): listing them runs ripgrep, whose start holds the loop for a moment
        and whose run takes a core, while the person types and the newest messages are
        drawn."""
        import asyncio
        import importlib

        if after is not None:
            await asyncio.to_thread(after.wait, RESUME_FIRST_S)
        # The listing's module, imported off the loop: the loader thread may be importing
        # the tools' modules it needs, and an import waits for the other thread's.
        await asyncio.to_thread(importlib.import_module, "agentcli.tools.ripgrep")
        from agentcli.frontends.tui.completers import list_project_files

        files = await list_project_files(self.app.state.cwd)
        self.app.post_message(messages.FilesListed(files))
