"""A budget for one tool result, so a single huge output never fills the window.

A result over the budget (500 KB of logs, say) is cut to its head and tail
with a note, and the full text is saved to a file the model can Read or Grep.
This runs on each request's copy of the messages (`shape_request`), not on
the conversation: the transcript keeps the full result, and because the cut
is a pure function of the result (and the file is written once, named by the
tool_use id) every request sends the same bytes, which keeps the cache warm.
The file is private (0600): a command's output may hold secrets.
"""

from __future__ import annotations

from pathlib import Path
from typing import TypeGuard

from agentcli.config.private_files import write_private_atomic
from agentcli.core.messages import (
    Block,
    Message,
    ResultPart,
    ToolResultBlock,
    is_text,
    is_tool_result,
)
from agentcli.tools.base import RESULT_BUDGET_CHARS

MAX_RESULT_CHARS = RESULT_BUDGET_CHARS
HEAD_CHARS = 24_000
TAIL_CHARS = 12_000


class ToolResultBudget:
    def __init__(
        self,
        folder: Path,
        *,
        max_chars: int = MAX_RESULT_CHARS,
        head: int = HEAD_CHARS,
        tail: int = TAIL_CHARS,
    ) -> None:
        self.folder = folder
        self.max_chars = max_chars
        self.head = min(head, max_chars)
        self.tail = min(tail, max(max_chars - self.head, 0))
        self._notes: dict[str, str] = {}  # tool_use_id -> the note, once saved

    def __call__(self, messages: list[Message]) -> list[Message]:
        out = list(messages)
        for i, message in enumerate(out):
            content = message.get("content")
            if message.get("role") != "user" or not isinstance(content, list):
                continue
            if not any(self._too_big(b) for b in content):
                continue
            blocks = [self._cut(b) if self._too_big(b) else b for b in content]
            out[i] = {**message, "content": blocks}
        return out

    def _too_big(self, block: Block) -> TypeGuard[ToolResultBlock]:
        return is_tool_result(block) and len(_text(block)) > self.max_chars

    def _cut(self, block: ToolResultBlock) -> ToolResultBlock:
        full = _text(block)
        tool_id = str(block.get("tool_use_id", "result"))
        note = self._notes.get(tool_id)
        if note is None:
            note = self._save(tool_id, full)
        shown = full[: self.head]
        tail = full[-self.tail :] if self.tail else ""
        text = (
            f"{shown}\n\n[... {len(full) - len(shown) - len(tail):,} characters cut ...]\n\n{tail}"
            f"\n\n{note}"
        )
        others = [b for b in _blocks(block) if b.get("type") != "text"]
        new: ToolResultBlock = {**block, "content": [{"type": "text", "text": text}, *others]}
        return new

    def _save(self, tool_id: str, full: str) -> str:
        size = f"The result was {len(full):,} characters, over the {self.max_chars:,} budget"
        shown = f"only the first {self.head:,} and the last {self.tail:,} are shown above"
        safe = "".join(c if c.isalnum() or c in "-_" else "_" for c in tool_id)
        path = self.folder / f"{safe}.txt"
        try:
            if not path.exists():
                write_private_atomic(path, full)
        except OSError as exc:
            note = f"[{size}; {shown}. The full text could not be saved: {exc.strerror or exc}]"
        else:
            note = (
                f"[{size}; {shown}. The full text is saved in {path}: "
                "use Read with offset/limit, or Grep, to see the rest.]"
            )
        self._notes[tool_id] = note
        return note


def _blocks(block: ToolResultBlock) -> list[ResultPart]:
    content = block.get("content")
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return [b for b in content or [] if isinstance(b, dict)]


def _text(block: ToolResultBlock) -> str:
    content = block.get("content")
    if isinstance(content, str):
        return content
    return "".join(b.get("text", "") for b in _blocks(block) if is_text(b))
