"""What several parts of the app read: one small typed object, owned by the app.

Everything else has one owner that keeps it to itself: the turn runner its
queue and its worker (turns.py), the prompt flow the completion's sources
(prompt_flow.py), the widgets what they show. What is here is read by more
than one of them, and each field has one writer, named beside it, so a
change to it has one place to look:

- `cwd`, `permission_guard_s`: fixed when the app is made;
- `engine`, `initial_mode`, `opening`, `mcp_link`: the session switcher
  (sessions.py), which gives the app each new engine and follows its servers;
- `provider_error`: the app, when start-up reports the provider failed;
- `exit_signal`: the signal ending (ending.py).

Helpers get this object, never the app: reading a field is all they may do
with another's.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agentcli.engine.query_engine import QueryEngine
    from agentcli.frontends.tui.mcp.link import McpLink


@dataclass
class AppState:
    cwd: Path
    permission_guard_s: float | None = None  # None: each question's own guard
    engine: QueryEngine | None = None  # the session's engine, once built
    initial_mode: str | None = None  # the permission mode the session began in
    opening: bool = False  # the SessionStart hooks are running: prompts wait
    mcp_link: McpLink | None = None  # once the engine has MCP servers
    provider_error: str | None = None  # why there is no model connection
    exit_signal: int | None = None  # SIGTERM / SIGHUP, once one arrived

    @property
    def ready(self) -> bool:
        """A prompt can go now: the engine has its provider and the session is open."""
        engine = self.engine
        return engine is not None and engine.provider is not None and not self.opening

    def built_engine(self) -> QueryEngine:
        """The engine, where the flow guarantees it is built (after the engine came)."""
        if self.engine is None:
            raise RuntimeError("the engine is not built yet")
        return self.engine

    def guard_s(self, default: float) -> float:
        """How long a question ignores keys after it opens (`default`, unless fixed)."""
        return default if self.permission_guard_s is None else self.permission_guard_s
