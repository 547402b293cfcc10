"""The app's `statusLine`: the command of the session's settings, fed the session.

The runner (frontends/tui/status_command.py) knows nothing of the engine or the
app; this glue reads the setting from the engine's settings (its highest trusted
layer: wiring/layered.py, so a folder not trusted runs none), makes the input from
the engine whenever the app refreshes its status (after each answer, at a turn's
end, on `/model`, `/effort`...), shows the line in the app's `CommandStatus` and a
failure as one note. A new engine (a resumed or cleared session) gets the command
of its own settings; `refreshInterval` adds a timed run.
"""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING, Any, Protocol

from rich.text import Text

from agentcli import __version__
from agentcli.core.model_catalog import display_name
from agentcli.frontends.tui.status_command import (
    TIMEOUT_S,
    ContextWindow,
    StatusCommand,
    StatusInput,
)

if TYPE_CHECKING:
    from pathlib import Path

    from textual.timer import Timer

    from agentcli.config.settings_schema import StatusLineSettings
    from agentcli.engine.query_engine import QueryEngine
    from agentcli.frontends.tui.widgets.status import CommandStatus


class FeedHost(Protocol):
    """What the feed needs of the app."""

    @property
    def cwd(self) -> Path: ...
    @property
    def command_status(self) -> CommandStatus: ...
    def note(self, text: str, level: str = "info") -> None: ...
    def set_interval(self, interval: float, callback: Any) -> Timer: ...


class StatusFeed:
    def __init__(self, app: FeedHost) -> None:
        self.app = app
        self.runner: StatusCommand | None = None
        self._engine: QueryEngine | None = None
        self._timer: Timer | None = None
        self._padding = 0
        self.timeout_s = TIMEOUT_S  # how long a run may take
        self._began = time.monotonic()
        self._closing: set[asyncio.Task[None]] = set()  # runners of earlier sessions

    def update(self, engine: QueryEngine | None) -> None:
        """The session may have changed: run the command for it (when it did)."""
        if engine is None:
            return
        if engine is not self._engine:
            self._follow(engine)
        if self.runner is not None:
            self.runner.update(self.input_of(engine))

    def _follow(self, engine: QueryEngine) -> None:
        from agentcli.wiring.layered import layered  # the settings are loaded by now

        self._engine = engine
        settings = engine.settings
        found = layered(settings, "statusLine") if settings is not None else None
        config: StatusLineSettings | None = found.value if found is not None else None
        if self.runner is not None and config is not None and self.runner.command == config.command:
            return  # the same command goes on for the new session
        self._stop()
        if config is None:
            return
        self._padding = config.padding or 0
        self.runner = StatusCommand(
            config.command,
            engine.workspace.root,  # the project, where hooks run too
            self._show,
            lambda problem: self.app.note(problem, "warning"),
            env=settings.env_values() if settings is not None else None,
            timeout_s=self.timeout_s,
        )
        if config.refreshInterval:
            self._timer = self.app.set_interval(config.refreshInterval, self.runner.refresh)

    def _show(self, line: Text) -> None:
        self.app.command_status.show_line(line, self._padding)

    def input_of(self, engine: QueryEngine) -> StatusInput:
        from agentcli.engine.windows import context_window

        model = engine.config.model
        usage = engine.last_request_usage
        transcript = engine.transcript
        return StatusInput(
            session_id=engine.session_id,
            transcript_path=str(transcript.path) if transcript is not None else None,
            cwd=str(self.app.cwd),
            project_dir=str(engine.workspace.root),
            model_id=model,
            model_display_name=display_name(model),
            version=__version__,
            total_cost_usd=engine.cost_usd,
            context_window=ContextWindow(
                size=context_window(model, engine.config.models),
                input_tokens=usage.input_tokens,
                output_tokens=usage.output_tokens,
                cache_creation_input_tokens=usage.cache_creation_input_tokens,
                cache_read_input_tokens=usage.cache_read_input_tokens,
            ),
            effort=engine.config.reasoning.effort,
            total_duration_ms=int((time.monotonic() - self._began) * 1000),
        )

    def _stop(self) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        runner, self.runner = self.runner, None
        if runner is not None:
            task = asyncio.get_running_loop().create_task(runner.aclose())
            self._closing.add(task)
            task.add_done_callback(self._closing.discard)
            self.app.command_status.show_line(Text())

    async def aclose(self) -> None:
        if self._timer is not None:
            self._timer.stop()
        if self.runner is not None:
            await self.runner.aclose()
        for task in list(self._closing):
            await task
