"""A tool's way to the model: one short, tool-free request to a small, fast model.

WebFetch asks a small model about a long page instead of putting the whole
page in the conversation. The engine builds one `ModelAccess` per turn from
the session's provider (engine/orchestration.py hands it to tools as
`ToolContext.model`), so a tool never builds a client of its own and a
tool's request goes where the session's go.

The small model: the `smallFastModel` setting, else Claude Haiku on the
Anthropic provider, else the session's own model (another provider's names
are not ours to guess).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from agentcli.core.abort import AbortSignal
from agentcli.core.usage import Usage
from agentcli.providers.base import (
    BlockCompleted,
    MessageCompleted,
    ModelError,
    ModelRequest,
    Provider,
)

DEFAULT_SMALL_MODEL = "claude-haiku-4-5"


def small_model_for(provider: Provider, configured: str | None, main_model: str) -> str:
    """The model a tool's side request uses."""
    if configured:
        return configured
    return DEFAULT_SMALL_MODEL if provider.name == "anthropic" else main_model


# The session's tally (QueryEngine.account): a side request's usage and its model.
Accounting = Callable[[Usage, str], None]


@dataclass(frozen=True, slots=True)
class ModelAccess:
    provider: Provider
    model: str
    account: Accounting | None = None  # its tokens and cost count in /cost and -p's total

    async def ask(
        self, system: str, prompt: str, abort: AbortSignal, *, max_tokens: int = 4096
    ) -> str:
        """The model's text answer to one user message. Raises ModelError."""
        request = ModelRequest(
            model=self.model,
            messages=[{"role": "user", "content": [{"type": "text", "text": prompt}]}],
            system=[{"type": "text", "text": system}],
            max_tokens=max_tokens,
        )
        texts: list[str] = []
        async for event in self.provider.stream(request, abort):
            if isinstance(event, BlockCompleted) and event.block.get("type") == "text":
                texts.append(str(event.block.get("text", "")))
            elif isinstance(event, MessageCompleted) and self.account is not None:
                self.account(event.usage, self.model)
        if abort.aborted:
            raise ModelError("interrupted")
        answer = "".join(texts).strip()
        if not answer:
            raise ModelError(f"{self.model} gave an empty answer")
        return answer
