"""The provider seam: what the loop needs from a model back end.

A provider turns one `ModelRequest` into a stream of small events: text as it
arrives, each content block once it is complete, and the end of the message.
Retrying is the provider's business (it knows which errors are transient);
it reports each retry as an event so the person sees why nothing happens.

A failure the provider gives up on is raised as `ModelError`. Whatever was
streamed before it stays valid: the loop keeps the complete blocks.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any, Protocol

from agentcli.core.abort import AbortSignal
from agentcli.core.messages import Block, Message, SystemBlock
from agentcli.core.reasoning import Reasoning
from agentcli.core.usage import Usage


@dataclass(frozen=True, slots=True)
class ModelRequest:
    """One request: the conversation as the API takes it (core/messages.py, the
    Messages API's shape, which the OpenAI providers translate), the system prompt's
    blocks and the tools' schemas (JSON, as the tools give them). `reasoning`: how hard
    the model should think, which each provider sends in its API's shape."""

    model: str
    messages: list[Message]
    system: list[SystemBlock] = field(default_factory=list)
    tools: list[dict[str, Any]] = field(default_factory=list)
    max_tokens: int = 32000
    extra: dict[str, Any] = field(default_factory=dict)
    reasoning: Reasoning | None = None


@dataclass(frozen=True, slots=True)
class StreamStarted:
    message_id: str
    model: str
    usage: Usage


@dataclass(frozen=True, slots=True)
class TextChunk:
    index: int
    text: str


@dataclass(frozen=True, slots=True)
class ThinkingChunk:
    index: int
    text: str


@dataclass(frozen=True, slots=True)
class BlockCompleted:
    """A content block is complete: tool_use input is parsed JSON by now."""

    index: int
    block: Block


@dataclass(frozen=True, slots=True)
class MessageCompleted:
    stop_reason: str | None
    usage: Usage


@dataclass(frozen=True, slots=True)
class Retrying:
    attempt: int
    max_retries: int
    delay_s: float
    error: str
    status: int | None = None


ProviderEvent = (
    StreamStarted | TextChunk | ThinkingChunk | BlockCompleted | MessageCompleted | Retrying
)


class ModelError(Exception):
    """The model call failed for good. `message` is meant for the person."""

    def __init__(self, message: str, *, status: int | None = None, kind: str = "api_error"):
        super().__init__(message)
        self.message = message
        self.status = status
        self.kind = kind


async def close_provider(provider: object) -> None:
    """Release a provider's connections, if it holds any (`aclose()` is optional)."""
    close = getattr(provider, "aclose", None)
    if close is not None:
        await close()


def api_of(provider: Provider, model: str) -> str:
    """The API a request for `model` goes to: the provider's name, or, for a router of
    several back ends (providers/registry.py), the type of the one `model` names. What
    a request may carry (the API's own server tools) depends on it."""
    route = getattr(provider, "api_of", None)
    return str(route(model)) if route is not None else provider.name


class Provider(Protocol):
    """A model back end."""

    name: str

    def stream(self, request: ModelRequest, abort: AbortSignal) -> AsyncIterator[ProviderEvent]:
        """Stream one model response. Raises `ModelError`; stops early on abort."""
        ...
