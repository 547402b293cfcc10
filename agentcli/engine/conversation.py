"""The conversation as the engine's helpers see it: what the next request is made of.

The compactor (compaction.py) and the measure of the window (windows.py,
`/context`) read an engine's messages, system prompt, tools and model; they get
this Protocol, not the QueryEngine, which is one (and so is anything a test
builds with the same few members). `MessageMeta` and `RequestShaper` are the
two shapes the engine's parts share about messages.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from agentcli.core.messages import Message, SystemBlock
from agentcli.core.model_catalog import ModelCatalog
from agentcli.tools.registry import ToolRegistry

# What a listener hears with each message: its model and usage, a compaction's facts.
MessageMeta = dict[str, Any]
# Shapes each request's copy of the messages (cache breakpoints, the tool-result budget).
RequestShaper = Callable[[list[Message]], list[Message]]


class ModelChoice(Protocol):
    """The model a conversation talks to, and the settings' catalog of models
    (engine/parts.py `EngineConfig`)."""

    @property
    def model(self) -> str: ...

    @property
    def models(self) -> ModelCatalog: ...


class Conversation(Protocol):
    """What the next model request is made of."""

    @property
    def messages(self) -> list[Message]:
        """The conversation, API-shaped; a compaction replaces its older part in place."""

    @property
    def system(self) -> list[SystemBlock]: ...

    @property
    def config(self) -> ModelChoice: ...

    @property
    def shape_request(self) -> RequestShaper | None:
        """How each request's copy of the messages is shaped; None: sent as they are."""

    def visible_tools(self) -> ToolRegistry:
        """The tools the model is shown now."""
