"""The assistant message being received: what one model response has streamed so far.

Text is kept as it streams, so an interrupted answer keeps what the person
already saw; other blocks count only once complete (a half-received tool_use
has no input to run, and a thinking block needs its signature).
"""

from __future__ import annotations

from agentcli.core.messages import Block, Message, is_text
from agentcli.core.usage import Usage
from agentcli.core.wellformed import scrub
from agentcli.providers.base import ModelError


class Reply:
    def __init__(self) -> None:
        self.blocks: dict[int, Block] = {}
        self.partial_text: dict[int, list[str]] = {}
        self.usage = Usage()
        self.stop_reason: str | None = None
        self.model: str | None = None
        self.message_id: str | None = None  # the API's id for this response (msg_...)
        self.complete = False  # the message's end arrived
        self.failure: ModelError | None = None  # why it will not be complete
        self.interrupted = False  # the abort signal stopped it

    @property
    def unfinished(self) -> bool:
        """It stopped before it could join the conversation whole."""
        return self.failure is not None or self.interrupted

    def add_text(self, index: int, text: str) -> None:
        self.partial_text.setdefault(index, []).append(text)

    def complete_block(self, index: int, block: Block) -> None:
        self.partial_text.pop(index, None)
        # The conversation holds only valid Unicode, or no request could be sent again.
        self.blocks[index] = scrub(block)

    def answer(self) -> Message:
        """The complete answer. The API rejects empty content, and an empty answer
        is still an answer: it says "(no content)"."""
        blocks = _kept(self.blocks) or [{"type": "text", "text": "(no content)"}]
        return {"role": "assistant", "content": blocks}

    def partial_answer(self) -> Message | None:
        """What arrived before the response stopped: the complete blocks and the text
        streamed so far; None when nothing worth keeping did."""
        found = dict(self.blocks)
        for index, parts in self.partial_text.items():
            found[index] = {"type": "text", "text": scrub("".join(parts))}
        blocks = _kept(found)
        return {"role": "assistant", "content": blocks} if blocks else None


def _kept(found: dict[int, Block]) -> list[Block]:
    return [found[i] for i in sorted(found) if _keep_block(found[i])]


def _keep_block(block: Block) -> bool:
    if is_text(block):  # the API rejects empty and whitespace-only text blocks
        return bool(block.get("text", "").strip())
    if block.get("type") == "thinking":
        return bool(block.get("signature"))
    return True
