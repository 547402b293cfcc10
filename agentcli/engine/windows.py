"""The context window of each model, in tokens.

Current Claude models have a 200k-token window; a `[1m]` suffix (how Claude
Code names the 1M-token beta variants) means one million. A Claude model we
do not know gets 200k, the common case. Another vendor's model
(`provider/model`) has the window its settings give (`contextWindow`), else
a small one that every current model holds, so compaction comes early
rather than too late. AGENTCLI_CONTEXT_WINDOW overrides (for trying
compaction on a small window).

`context_usage()` measures a conversation (engine/conversation.py) with the
compactor that watches it, if any: what it needs of each, not the engine.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Protocol

from agentcli.core.messages import normalize_for_api
from agentcli.core.model_catalog import DEFAULT_CATALOG, ModelCatalog
from agentcli.engine.conversation import Conversation
from agentcli.engine.memory import MEMORY_HEADER

DEFAULT_WINDOW = 200_000
LARGE_WINDOW = 1_000_000
UNKNOWN_MODEL_WINDOW = 32_768  # another vendor's model without a configured window


def context_window(model: str, catalog: ModelCatalog = DEFAULT_CATALOG) -> int:
    configured = os.environ.get("AGENTCLI_CONTEXT_WINDOW", "").strip()
    if configured.isdigit() and int(configured) > 0:
        return int(configured)
    from_settings = catalog.spec(model).context_window
    if from_settings is not None:
        return from_settings
    if catalog.anthropic_name(model) is None:
        return UNKNOWN_MODEL_WINDOW
    if model.lower().endswith("[1m]"):
        return LARGE_WINDOW
    return DEFAULT_WINDOW


def estimate_tokens(value: object) -> int:
    """About four characters of JSON per token: for parts the API does not count
    separately (and for messages sent after the last usage report)."""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return len(text) // 4


@dataclass(frozen=True)
class ContextUsage:
    """How full the window is, by part, for `/context` and the status bar."""

    window: int
    total: int
    parts: dict[str, int]  # system, tools, memory, messages
    compact_at: int | None = None  # the auto-compaction threshold, in tokens

    @property
    def fraction(self) -> float:
        return self.total / self.window if self.window else 0.0


class RequestMeasure(Protocol):
    """How the compactor measures the next request (engine/compaction.py `Compactor`)."""

    def estimate_request_tokens(self, conversation: Conversation) -> int: ...

    def window(self, conversation: Conversation) -> int: ...

    def limit(self, conversation: Conversation) -> int:
        """The size at which it compacts."""


class WatchedConversation(Conversation, Protocol):
    """A conversation and the compactor that watches it, if any (a QueryEngine)."""

    @property
    def compactor(self) -> RequestMeasure | None: ...


def context_usage(conversation: WatchedConversation) -> ContextUsage:
    """The next request's size: the API's count of the last request (from its
    usage) plus an estimate of what was added since, split by part. The split
    of the counted part is estimated; messages get what the others do not."""
    system = conversation.system
    memory_blocks = [b for b in system if b.get("text", "").startswith(MEMORY_HEADER)]
    other_blocks = [b for b in system if b not in memory_blocks]
    parts = {
        "system": estimate_tokens(other_blocks) if other_blocks else 0,
        "tools": estimate_tokens(conversation.visible_tools().schemas()),
        "memory": estimate_tokens(memory_blocks) if memory_blocks else 0,
    }
    compactor = conversation.compactor
    if compactor is not None:
        total = compactor.estimate_request_tokens(conversation)
        window, compact_at = compactor.window(conversation), compactor.limit(conversation)
    else:
        messages = normalize_for_api(conversation.messages)
        total = sum(parts.values()) + (estimate_tokens(messages) if messages else 0)
        config = conversation.config
        window, compact_at = context_window(config.model, config.models), None
    fixed = sum(parts.values())
    parts["messages"] = max(total - fixed, 0)
    return ContextUsage(window, max(total, fixed), parts, compact_at)
