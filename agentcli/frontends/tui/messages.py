"""What start-up and the session switcher tell the app, as typed Textual messages.

Start-up builds the engine and the provider in a thread; the session switcher
runs the SessionStart hooks in a worker. Neither sets the app's state nor calls
another helper: each posts one of these to the app (`post_message` is safe
from any thread), and the app's handler gives it to whoever owns that state.
Messages from one sender are handled in the order they were posted, so what
start-up shows keeps its order (the engine, its notices, a resumed history,
the provider) whatever the threads do.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual.message import Message

if TYPE_CHECKING:
    from agentcli.engine.query_engine import QueryEngine
    from agentcli.frontends.tui.history import PromptHistory
    from agentcli.mcp.manager import McpManager


class Note(Message):
    """A line for the conversation, from a thread (kept in order with the rest)."""

    def __init__(self, text: str, level: str = "info") -> None:
        super().__init__()
        self.text = text
        self.level = level


class CommandsLoaded(Message):
    """The command modules are in the registry (imported in the loader thread);
    `problems`: those that could not be loaded, a line each."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__()
        self.problems = problems


class HistoryLoaded(Message):
    """The project's prompt history, read at start."""

    def __init__(self, history: PromptHistory) -> None:
        super().__init__()
        self.history = history


class FilesListed(Message):
    """The project's files, for `@` completion."""

    def __init__(self, files: list[str]) -> None:
        super().__init__()
        self.files = files


class EngineBuilt(Message):
    """A new engine (at start): the session it holds is the app's from now on."""

    def __init__(self, engine: QueryEngine) -> None:
        super().__init__()
        self.engine = engine


class ResumedAtStart(Message):
    """`--continue` / `--resume ID`: the loaded session, to show."""

    def __init__(self, loaded: Any) -> None:
        super().__init__()
        self.loaded = loaded


class ResumedTail(Message):
    """`--continue` / `--resume ID`: the newest messages of the session, read from its
    transcript's end and prepared to draw (history_view.py `PreparedHistory`), to show
    before the rest is read (session/tail_first.py). The app sets `drawn` once they
    are on screen (the loader reads the rest after)."""

    def __init__(self, tail: Any, drawn: Any) -> None:
        super().__init__()
        self.tail = tail
        self.drawn = drawn


class TailFinished(Message):
    """What the resumed tail's first frame did not need is worked out (history_view.py
    `finish_tail`): the items above the newest can be built now, each cheaply."""


class PickSession(Message):
    """`--resume` with no id: the picker of this folder's sessions."""


class ProviderLoaded(Message):
    """The loader thread built the provider; the engine gets it."""

    def __init__(self, provider: Any) -> None:
        super().__init__()
        self.provider = provider


class ProviderFailed(Message):
    """No model connection: `message` says why."""

    def __init__(self, message: str) -> None:
        super().__init__()
        self.message = message


class EngineReady(Message):
    """The engine is built and no provider is coming (or it already has one)."""


class McpLoaded(Message):
    """The MCP SDK is imported: the manager's servers can start on the app's loop."""

    def __init__(self, manager: McpManager) -> None:
        super().__init__()
        self.manager = manager


class SessionOpened(Message):
    """The SessionStart hooks ran (or none were due): what waits in the queue may go."""
