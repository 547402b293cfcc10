"""Start-up after the first frame: commands, history, then the engine, the provider
and the MCP servers, built off the UI thread.

The point is the order. Only textual and our UI modules are imported before
the first frame; the engine is built and the provider loaded in a thread
worker after the screen is up (a message sent before then waits in the queue).
In a folder whose settings would enable something and that the person has
not trusted yet, the loader first asks (screens/trust_question.py) and builds
the engine only with the answer, so nothing from those settings takes effect
before it. The MCP SDK is imported after the provider, and its servers are
started on the app's loop, where the engine that calls them lives.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Any

from agentcli.frontends.tui.history import PromptHistory

if TYPE_CHECKING:
    from agentcli.frontends.tui.app import AgentApp
    from agentcli.mcp.manager import McpManager


class Startup:
    def __init__(self, app: AgentApp) -> None:
        self.app = app

    def after_first_frame(self) -> None:
        import gc

        gc.freeze()  # start-up objects stay; later collections need not rescan them
        gc.enable()
        from agentcli.providers import tls

        tls.prepare()  # the certificates load on another core while the engine is built
        from agentcli.commands.registry import load_command_modules

        app = self.app
        for problem in load_command_modules():
            app.note(f"Could not load commands: {problem}", "warning")
        for problem in app.file_commands.load(app.cwd):
            app.note(f"Custom command: {problem}", "warning")
        app.commands_loaded = True
        app.prompt_flow.update_completion()  # a `/` typed before the commands were loaded
        app.history = PromptHistory.load(app.cwd)
        app.prompt.prompt_history = app.history
        if app.history.problem:
            app.note(app.history.problem, "warning")
        if app.engine is not None:
            app.sessions.link_mcp()
        if app.engine is None or (app.engine.provider is None and app.load_provider):
            app.run_worker(self._load_in_thread, thread=True, group="load", exit_on_error=False)
        else:
            app.sessions.engine_ready()
            app.run_worker(self._load_mcp_in_thread, thread=True, group="mcp", exit_on_error=False)
        app.run_worker(self._load_files(), group="files", exit_on_error=False)

    def options(self) -> Any:
        """The bootstrap Options of this run: its arguments, folder and trust answer."""
        from agentcli.wiring.bootstrap import Options

        app = self.app
        options = Options.from_args(app.args, app.cwd) if app.args else Options(app.cwd)
        options.trusted = app.trusted
        return options

    # -- in the loader thread ---------------------------------------------------------

    def _load_in_thread(self) -> None:
        """Build the engine, then the provider, then start the MCP servers, off the UI
        thread."""
        from agentcli.wiring.bootstrap import build_engine

        app = self.app
        if app.engine is None:
            options = self.options()
            if app.trusted is None and self._ask_trust(options):
                return  # the answer starts the loader again
            resumed = self._resumed_at_start(options)
            engine = build_engine(options, provider=None, resumed=resumed, carry_totals=True)
            app.call_from_thread(app.sessions.engine_built, engine)
            app.call_from_thread(self._show_startup_notices)
            # (Textual's signature for call_from_thread loses a coroutine's type: ignored.)
            if resumed is not None:
                app.call_from_thread(app.sessions.show_resumed, resumed)  # type: ignore[arg-type]
            elif getattr(options, "resume", None) == "":  # `--resume` with no id: pick one
                app.call_from_thread(app.pick_session)  # type: ignore[arg-type]
        if app.load_provider:
            self._load_provider()
        else:
            app.call_from_thread(app.sessions.engine_ready)
        self._load_mcp_in_thread()

    def _load_provider(self) -> None:
        """The provider, handed over to the app's thread."""
        from agentcli.providers.base import ModelError
        from agentcli.providers.tuning import ApiTuning
        from agentcli.wiring.bootstrap import make_provider

        app = self.app
        tuning = ApiTuning.from_env()
        for problem in tuning.problems:  # a malformed AGENTCLI_* timing: its default is used
            app.call_from_thread(app.note, problem, "warning")
        engine = app.built_engine()
        try:
            provider = make_provider(tuning, engine.settings, engine.config.model)
        except ModelError as error:
            app.call_from_thread(self._provider_failed, error.message)
            return
        except Exception as error:  # a provider that fails to build must not kill the app
            app.call_from_thread(self._provider_failed, f"{type(error).__name__}: {error}")
            return
        app.call_from_thread(self._provider_loaded, provider)

    def _ask_trust(self, options: Any) -> bool:
        """Show the trust question if this folder needs one."""
        from agentcli.config.trust_question import trust_question
        from agentcli.wiring.bootstrap import settings_for

        items = trust_question(settings_for(options), self.app.cwd)
        if items:
            answered = partial(self._trust_answered, items=items)
            self.app.call_from_thread(self.app.show_trust_question, items, answered)
        return bool(items)

    def _trust_answered(self, trusted: bool, items: list[Any]) -> None:
        self.app.trusted = trusted
        load = partial(self._remember_then_load, trusted, items)
        self.app.run_worker(load, thread=True, group="load", exit_on_error=False)

    def _remember_then_load(self, trusted: bool, items: list[Any]) -> None:
        from agentcli.config.trust_question import remember_trust

        problem = remember_trust(self.app.cwd, trusted, items)
        if problem:
            self.app.call_from_thread(self.app.note, problem, "warning")
        self._load_in_thread()

    def _resumed_at_start(self, options: Any) -> Any:
        """`--continue` / `--resume ID`: the session to open."""
        from agentcli.session.resume import SessionNotFound, resolve_resumed

        app = self.app
        resume_id = getattr(options, "resume", None) or None
        continue_latest = bool(getattr(options, "continue_session", False))
        if not (resume_id or continue_latest):
            return None
        try:
            return resolve_resumed(app.cwd, continue_latest=continue_latest, resume_id=resume_id)
        except SessionNotFound as problem:
            app.call_from_thread(app.note, f"{problem}; starting a new conversation", "warning")
            return None

    def _load_mcp_in_thread(self) -> None:
        """Import the MCP SDK off the UI thread, then start the servers on the app's loop
        (their connections live there, beside the engine that calls them). Run after the
        provider's import, not beside it: two imports at once hold the GIL long enough
        to delay the first frame's write."""
        from agentcli.mcp.manager import load_sdk

        app = self.app
        mcp = app.engine.mcp if app.engine is not None else None
        if mcp is None or not mcp.configured:
            return
        load_sdk()
        app.call_from_thread(self._start_mcp, mcp)  # type: ignore[arg-type]

    # -- on the app's thread ----------------------------------------------------------

    async def _start_mcp(self, mcp: McpManager) -> None:
        """Start the servers (a failure is a note: frontends/tui/mcp/link.py), then ask about the
        project's servers waiting for approval, once: an approved one starts when the
        answer comes."""
        await mcp.start()
        link = self.app.mcp_link
        if link is not None and link.manager is mcp:
            link.ask_about_new_servers(self.app.permission_guard_s)

    def _show_startup_notices(self) -> None:
        """Skipped settings files, protection uncertain, the bypass warning: as on stderr."""
        from agentcli.wiring.bootstrap import engine_startup_notices

        for notice in engine_startup_notices(self.app.built_engine()):
            self.app.note(notice.text, notice.level)

    def _provider_loaded(self, provider: Any) -> None:
        """The loader thread built the provider; the engine gets it."""
        self.app.built_engine().connect(provider)
        self.app.sessions.engine_ready()

    def _provider_failed(self, message: str) -> None:
        app = self.app
        app.provider_error = message
        app.note(message, "error")
        app.refresh_status()

    async def _load_files(self) -> None:
        from agentcli.frontends.tui.completers import list_project_files

        self.app.files = await list_project_files(self.app.cwd)
        self.app.prompt_flow.update_completion()  # an `@` typed before the list was ready
