"""The conversation as clean Markdown, for `/export`: what was said, none of the UI.

Each prompt of the person is a `## You` section and each stretch of the model's
work an `## agentcli` section: the texts verbatim (their own code blocks and all),
each tool call as one line (its name and the input a person recognises it by: the
file, the command, the pattern), then the start of its result in a fenced block.
Thinking is left out (it is the model's scratch, and signed: not for reading
back), images and documents are named, not embedded. A fence is always longer
than any run of backticks inside it, so a result that holds fences of its own
cannot end the block early.

The messages are the conversation as the model sees it now: after a compaction
its earlier part is the summary (the transcript keeps the whole history).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from typing import Any

from agentcli.core.messages import Message

RESULT_LINES = 20  # of each tool result; the rest is counted, not shown
INPUT_KEYS = ("file_path", "notebook_path", "command", "pattern", "path", "url", "query")
_BACKTICKS = re.compile(r"`+")


def conversation_markdown(messages: Iterable[Message], heading: str) -> str:
    """The Markdown of `messages` under the `# heading`."""
    return "\n".join(_lines(messages, heading)).rstrip() + "\n"


def _lines(messages: Iterable[Message], heading: str) -> Iterator[str]:
    yield f"# {heading}"
    speaker = ""
    for message in messages:
        role = message.get("role")
        content = message.get("content")
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        parts = [part for block in blocks or [] for part in _block(block)]
        if not parts:
            continue
        # A user message of tool results only continues the model's section.
        results_only = role == "user" and all(
            isinstance(b, dict) and b.get("type") == "tool_result" for b in blocks or []
        )
        now = "agentcli" if role == "assistant" or results_only else "You"
        if now != speaker:
            yield ""
            yield f"## {now}"
            speaker = now
        for part in parts:
            yield ""
            yield part


def _block(block: Any) -> list[str]:
    if not isinstance(block, dict):
        return []
    kind = block.get("type")
    if kind == "text" and isinstance(block.get("text"), str) and block["text"].strip():
        return [block["text"].strip("\n")]
    if kind in ("tool_use", "server_tool_use"):
        return [f"**{block.get('name', 'tool')}** {_input_line(block.get('input'))}".rstrip()]
    if kind == "tool_result" or kind == "web_search_tool_result":
        return [_result(block)]
    if kind == "image":
        return ["*[an image]*"]
    if kind == "document":
        return ["*[a document]*"]
    return []  # thinking, redacted thinking, anything newer: not for reading back


def _input_line(given: Any) -> str:
    """The input a person knows a call by: the first of the usual keys, or its JSON."""
    if not isinstance(given, dict) or not given:
        return ""
    for key in INPUT_KEYS:
        value = given.get(key)
        if isinstance(value, str) and value:
            return _code_span(value.splitlines()[0] if "\n" in value else value)
    return _code_span(json.dumps(given, ensure_ascii=False)[:200])


def _result(block: dict[str, Any]) -> str:
    content = block.get("content")
    if isinstance(content, list):
        texts = [p.get("text", "") for p in content if isinstance(p, dict) and "text" in p]
        others = sum(1 for p in content if isinstance(p, dict) and "text" not in p)
        text = "\n".join(str(t) for t in texts) + ("\n[an image]" * others)
    else:
        text = str(content or "")
    lines = text.strip("\n").splitlines() or ["(no output)"]
    shown = lines[:RESULT_LINES]
    if len(lines) > RESULT_LINES:
        shown.append(f"... {len(lines) - RESULT_LINES:,} more lines")
    label = "error" if block.get("is_error") else "text"
    return _fenced("\n".join(shown), label)


def _fenced(text: str, label: str) -> str:
    longest = max((len(run) for run in _BACKTICKS.findall(text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{label}\n{text}\n{fence}"


def _code_span(text: str) -> str:
    longest = max((len(run) for run in _BACKTICKS.findall(text)), default=0)
    ticks = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"
