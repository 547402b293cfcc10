"""What a QueryEngine works with, handed to it whole when it is built.

The composition root (agentcli/wiring/composition.py) puts an `EngineParts` together
for every front end, so this one class lists everything the engine uses and a
new front end has nothing left to wire. Nothing sets an engine's parts
afterwards, with one exception that has its own method: the model provider,
which a front end may load after the engine (the TUI, after its first frame), is
handed over with `QueryEngine.connect()`.

`SessionStart` is where the conversation begins: a new session, or the
messages and totals of a resumed transcript.

Each prompt the person sends has an id (a uuid): its transcript record's, and
the one its checkpoints are filed under (`Checkpoints`), so a rewind names a
prompt the same way in the app, `--rewind-to` and the SDK.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from agentcli.core.messages import Message, SystemBlock
from agentcli.core.model_catalog import DEFAULT_CATALOG, ModelCatalog
from agentcli.core.reasoning import REPLY_MAX_TOKENS, Reasoning
from agentcli.core.usage import SessionTotals, Usage
from agentcli.engine.conversation import MessageMeta, RequestShaper
from agentcli.plugins.places import EVERYWHERE, Places

if TYPE_CHECKING:
    from agentcli.config.settings import Settings
    from agentcli.engine.compaction import Compactor
    from agentcli.engine.memory import Memory
    from agentcli.engine.observer import EngineObserver
    from agentcli.hooks.events import Hooks
    from agentcli.mcp.manager import McpManager
    from agentcli.permissions.gate import PermissionGate
    from agentcli.providers.base import Provider
    from agentcli.tools.base import Workspace
    from agentcli.tools.registry import ToolRegistry

DEFAULT_MODEL = "claude-sonnet-5-5"


def new_session_id() -> str:
    return str(uuid.uuid4())


class Transcript(Protocol):
    """The session's record on disk (session/writer.py `TranscriptWriter`): told of
    each message as soon as it is complete."""

    @property
    def path(self) -> Path: ...

    @property
    def problem(self) -> str | None:
        """Why writing failed, if it did (the session goes on without it)."""

    def __call__(self, message: Message, meta: MessageMeta) -> None: ...

    def rewind(self, prompt_id: str) -> None:
        """The conversation went back to just before the prompt `prompt_id`."""

    def close(self) -> None: ...


class Checkpoints(Protocol):
    """Where the files the agent changes are recorded first (session/checkpoints.py).

    The engine calls these off the event loop; each may raise OSError (a full disk),
    which is reported and does not stop the tool."""

    def begin_prompt(self, prompt_id: str, text: str) -> None: ...

    def before_write(self, paths: Sequence[Path]) -> None: ...

    def after_write(self, paths: Sequence[Path]) -> None: ...

    def conversation_rewound(self, prompt_id: str) -> None: ...

    def close(self) -> None: ...


@dataclass
class EngineConfig:
    model: str = DEFAULT_MODEL  # `/model` changes it for the rest of the session
    # Windows and prices of configured models (`providers` in the settings).
    models: ModelCatalog = DEFAULT_CATALOG
    max_tokens: int = REPLY_MAX_TOKENS
    # How hard the model thinks (--effort, effortLevel, --max-thinking-tokens); `/effort`
    # changes it for the rest of the session.
    reasoning: Reasoning = field(default_factory=Reasoning)
    max_turns: int | None = None
    start_tools_while_streaming: bool = True
    small_model: str | None = None  # `smallFastModel`: tools' side requests (WebFetch)


@dataclass(frozen=True, kw_only=True)
class EngineParts:
    """Everything a QueryEngine works with. Only `provider` is optional at first."""

    provider: Provider | None  # None until a front end has loaded it (`connect()`)
    tools: ToolRegistry
    gate: PermissionGate  # the policy, and how a person's answer is asked for
    workspace: Workspace
    config: EngineConfig = field(default_factory=EngineConfig)
    system: list[SystemBlock] = field(default_factory=list)
    hooks: Hooks | None = None  # the settings' hooks; None when there are none
    compactor: Compactor | None = None  # auto-compaction at the checkpoint; `/compact`
    shape_request: RequestShaper | None = None
    settings: Settings | None = None  # what the session was built from (`/status`)
    transcript: Transcript | None = None
    mcp: McpManager | None = None  # MCP servers: their tools join `tools` at each request
    checkpoints: Checkpoints | None = None  # files before the agent changes them (rewind)
    # Reads the memory files again (after a compaction); None: the system prompt has none
    # (`--system-prompt`, a subagent's).
    read_memory: Callable[[], Memory] | None = None
    # Where the session's command files, agent files and skills come from: the settings
    # layers it reads and its plugins (plugins/places.py).
    places: Places = field(default_factory=lambda: EVERYWHERE)
    # Hears of the session's prompts, events and spending (telemetry); None: nobody.
    observer: EngineObserver | None = None


@dataclass(frozen=True, kw_only=True)
class SessionStart:
    """Where a session's conversation begins: new, or where a transcript left it."""

    session_id: str = field(default_factory=new_session_id)
    messages: list[Message] = field(default_factory=list)
    totals: SessionTotals = field(default_factory=SessionTotals)
    last_request_usage: Usage = field(default_factory=Usage)
    prompts: dict[str, Message] = field(default_factory=dict)  # prompt id -> its message
