"""The conversation's messages, typed, and the helpers that shape them.

Every message is the Messages API's own JSON: `{"role": ..., "content": ...}`,
its content a string or a list of blocks, each a dict with a `type`. The
conversation, the transcript, every request and the events a front end reads
hold messages in this one shape; the OpenAI providers translate it at their
end (providers/openai_*_request.py). The types below are TypedDicts: at run
time the messages stay plain dicts (no conversion, the wire and the file
unchanged), and mypy checks what each kind of block holds.

A block of a kind this version does not know (a newer server tool's) is kept
as it came and sent back unchanged: code that reads blocks looks at the kinds
it knows, by their `type`, and passes any other on. So `Block` names the kinds
agentcli reads or writes; it is not a promise that no other `type` arrives
(the JSON from the API or a transcript becomes a `Block` in `as_block()`).

The conversation list keeps one entry per thing that happened (a prompt, the
tool results, an interruption marker), which is what the transcript wants.
The API wants alternating roles with tool results first in a user message;
`normalize_for_api()` makes that view without changing the conversation.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, NotRequired, TypedDict, TypeGuard, cast

Role = Literal["user", "assistant"]


class CacheControl(TypedDict):
    """A prompt-cache breakpoint (engine/caching.py places them on request copies)."""

    type: Literal["ephemeral"]
    ttl: NotRequired[str]


class _Cacheable(TypedDict, total=False):
    cache_control: CacheControl


class TextBlock(_Cacheable):
    type: Literal["text"]
    text: str
    citations: NotRequired[list[dict[str, Any]]]  # the API's, sent back as they came


class Base64Source(TypedDict):
    type: Literal["base64"]
    media_type: str
    data: str


class UrlSource(TypedDict):
    type: Literal["url"]
    url: str


class PlainTextSource(TypedDict):
    type: Literal["text"]
    media_type: str  # "text/plain"
    data: str


class ImageBlock(_Cacheable):
    type: Literal["image"]
    source: Base64Source | UrlSource


class DocumentBlock(_Cacheable):
    type: Literal["document"]
    source: Base64Source | UrlSource | PlainTextSource
    title: NotRequired[str]
    context: NotRequired[str]
    citations: NotRequired[dict[str, Any]]


# What a tool result may hold besides a plain string.
ResultPart = TextBlock | ImageBlock | DocumentBlock


class ToolUseBlock(_Cacheable):
    """A call the model made. `input` is the model's own JSON: anything may be in it
    (engine/orchestration.py checks it before any tool sees it)."""

    type: Literal["tool_use"]
    id: str
    name: str
    input: dict[str, Any]


class ToolResultBlock(_Cacheable):
    """The result of the call `tool_use_id`, in the next user message."""

    type: Literal["tool_result"]
    tool_use_id: str
    content: NotRequired[str | list[ResultPart]]
    is_error: NotRequired[bool]


class ThinkingBlock(TypedDict):
    """Extended thinking; `signature` (Anthropic's, at the block's end) lets it be sent
    back. A block without one (another vendor's reasoning) is not."""

    type: Literal["thinking"]
    thinking: str
    signature: NotRequired[str]


class RedactedThinkingBlock(TypedDict):
    type: Literal["redacted_thinking"]
    data: str


class ServerToolUseBlock(_Cacheable):
    """A call of a tool the API runs itself (web search: tools/server_tool.py)."""

    type: Literal["server_tool_use"]
    id: str
    name: str
    input: dict[str, Any]


# The results of the API's own tools, as it names them.
ServerToolResultKind = Literal[
    "web_search_tool_result",
    "web_fetch_tool_result",
    "code_execution_tool_result",
    "bash_code_execution_tool_result",
    "text_editor_code_execution_tool_result",
    "tool_search_tool_result",
]


class ServerToolResultBlock(_Cacheable):
    """What the API's own tool returned: its content is the API's, kept and sent back
    as it came, never read here."""

    type: ServerToolResultKind
    tool_use_id: str
    content: Any


# One content block of a message (see the module's docstring for kinds it does not name).
Block = (
    TextBlock
    | ImageBlock
    | DocumentBlock
    | ToolUseBlock
    | ToolResultBlock
    | ThinkingBlock
    | RedactedThinkingBlock
    | ServerToolUseBlock
    | ServerToolResultBlock
)
# The system prompt is text blocks (the last one carries a cache breakpoint).
SystemBlock = TextBlock


class Message(TypedDict):
    """A message of the conversation: the person's (tool results are theirs too) or
    the model's."""

    role: Role
    content: str | list[Block]


def as_block(raw: dict[str, Any]) -> Block:
    """JSON the API sent (or a transcript recorded) taken as the block its `type` says.
    Not checked field by field: the API is the authority on its blocks, and a kind this
    version does not know passes through unchanged (the module's docstring)."""
    return cast(Block, raw)


def is_text(block: Block) -> TypeGuard[TextBlock]:
    return block.get("type") == "text"


def is_tool_use(block: Block) -> TypeGuard[ToolUseBlock]:
    return block.get("type") == "tool_use"


def is_tool_result(block: Block) -> TypeGuard[ToolResultBlock]:
    return block.get("type") == "tool_result"


def is_image(block: Block) -> TypeGuard[ImageBlock]:
    return block.get("type") == "image"


# The result of a call stopped by an interruption: in the live loop, and for a call
# a transcript recorded without its result (the process died while it ran).
INTERRUPTED_MESSAGE = "Interrupted by the user: this tool call was stopped before it finished."
# The user text that ends an interrupted answer in the conversation (the live loop
# adds it; a resumed history shows it as an "Interrupted" note).
INTERRUPT_MARKER = "[Request interrupted by user]"


def user_message(content: str | list[Block]) -> Message:
    if isinstance(content, str):
        content = [{"type": "text", "text": content}]
    return {"role": "user", "content": content}


def as_blocks(content: str | list[Block]) -> list[Block]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}] if content else []
    return list(content)


def normalize_for_api(messages: list[Message]) -> list[Message]:
    """Merge consecutive user messages, tool results first; drop empty ones."""
    out: list[Message] = []
    for message in messages:
        blocks = as_blocks(message["content"])
        if not blocks:
            continue
        if out and out[-1]["role"] == message["role"] == "user":
            merged = as_blocks(out[-1]["content"]) + blocks
            results = [b for b in merged if b.get("type") == "tool_result"]
            others = [b for b in merged if b.get("type") != "tool_result"]
            out[-1] = {"role": "user", "content": results + others}
        else:
            out.append({"role": message["role"], "content": blocks})
    return out


def text_of(message: Mapping[str, Any]) -> str:
    """The plain text of a message (its text blocks joined): a `Message`, or a message's
    JSON as a transcript holds it (session/store.py reads those unchecked)."""
    content = message.get("content")
    if isinstance(content, str):
        return content
    return "".join(b.get("text", "") for b in content or [] if is_text(b))


def tool_uses(message: Message) -> list[ToolUseBlock]:
    content = message.get("content")
    if not isinstance(content, list):
        return []
    return [b for b in content if is_tool_use(b)]


def answer_dangling_tool_uses(
    messages: list[Message], result_text: str, marker: str
) -> Message | None:
    """If the conversation ends with tool_use blocks nobody answered, answer them.

    Happens when whoever consumed the loop stopped listening mid-turn. Each call
    gets an error result and the marker says why; returns the message added.
    """
    if not messages or messages[-1]["role"] != "assistant":
        return None
    calls = tool_uses(messages[-1])
    if not calls:
        return None
    content: list[Block] = [
        {"type": "tool_result", "tool_use_id": c["id"], "content": result_text, "is_error": True}
        for c in calls
    ]
    content.append({"type": "text", "text": marker})
    message: Message = {"role": "user", "content": content}
    messages.append(message)
    return message
