"""Reading a transcript back, repairing what a crash or a newer version left.

Loading never refuses a file that can be read and never changes it: every
repair happens in memory and is reported as a notice.

- a cut last line (the process died mid-write) is dropped;
- a line that is not JSON, or a record of a type we do not know, is skipped;
- a file from a newer format version loads what this version understands;
- a `tool_use` whose result was never written (killed while a tool ran) gets
  a result saying it was interrupted, so the next request is one the API
  accepts; a `tool_result` whose call is missing is dropped.

`messages` is the context the model sees: what follows the last compact
boundary. `history` is every message of the file for display (the kept copies
written after a boundary are not repeated), and `displays` what the person
was shown of each tool call, by tool_use id (a display of a kind this
version does not know is left out, and the call is shown plainly). `last_usage` is the usage of the
last request after that boundary (the context size the status bar shows);
`totals` add up every request the file records, compaction summaries included.
A `rewind` record takes `messages` and `history` back to just before the
prompt it names (the file keeps the branch it left), and `last_usage` to that
of the last answer left; `prompts` maps the ids of the prompts still in
`messages` to their messages.

A loaded session that is going to be written again carries the claim on its
file (claim.py): the locked handle to append to, or for a fork the text its
new file starts with.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, TypeGuard, cast

from agentcli.core.messages import (
    INTERRUPTED_MESSAGE,
    Block,
    Message,
    Role,
    ToolUseBlock,
    user_message,
)
from agentcli.core.pricing import add_cost, cost_usd
from agentcli.core.usage import SessionTotals, Usage
from agentcli.session import records

if TYPE_CHECKING:
    from agentcli.tools.display import ToolDisplay


class TranscriptError(Exception):
    """The transcript could not be read at all (missing, unreadable)."""


@dataclass
class LoadedSession:
    path: Path
    session_id: str
    messages: list[Message] = field(default_factory=list)
    history: list[Message] = field(default_factory=list)
    displays: dict[str, ToolDisplay] = field(default_factory=dict)
    # A tail's displays as recorded, not validated (`parse_tail`): whoever draws one
    # validates it then (`tools.display.load_display`).
    raw_displays: dict[str, object] = field(default_factory=dict)
    notices: list[str] = field(default_factory=list)
    meta: dict[str, Any] = field(default_factory=dict)
    last_uuid: str | None = None
    # Lines dropped as unreadable (1-based) that no earlier resume recorded.
    dropped_lines: list[int] = field(default_factory=list)
    # Messages the repair added at the end of `messages` (results of dangling calls).
    synthetic: list[Message] = field(default_factory=list)
    compactions: int = 0
    prompts: dict[str, Message] = field(default_factory=dict)  # prompt id -> message
    last_usage: Usage = field(default_factory=Usage)
    totals: SessionTotals = field(default_factory=SessionTotals)
    # The claim on the file (claim.py): the transcript, locked and open for
    # appending; or, for a fork, the id it was forked from and the text its new
    # file starts with (written with the fork's first message).
    lock: IO[str] | None = None
    forked_from: str | None = None
    preamble: str | None = None

    def release(self) -> None:
        """Give up the claim without writing (the session was not opened after all)."""
        if self.lock is not None:
            self.lock.close()
            self.lock = None


def load_session(path: Path, *, context_only: bool = False) -> LoadedSession:
    """`context_only`: what the next request needs and nothing more (`-p --continue`):
    the session record and the records from the last compact boundary on are parsed,
    the lines before it are not read at all. `messages`, `prompts`, `last_usage` and
    `last_uuid` are those of a full load; `history`, `displays` and `totals` cover only
    that part, and a broken line before the boundary goes unreported (a full load,
    as the app does, still reports it)."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise TranscriptError(f"{path}: no such transcript") from None
    except OSError as exc:
        raise TranscriptError(f"{path}: cannot read the transcript: {exc.strerror}") from None
    return parse_transcript(raw, path, context_only=context_only)


def parse_transcript(
    raw: bytes | bytearray, path: Path, *, context_only: bool = False
) -> LoadedSession:
    """A transcript's content, read as if it were the file at `path`."""
    loaded = LoadedSession(path=path, session_id=path.stem)
    _Parser(loaded, context_only=context_only).parse(raw)
    _repair(loaded)
    present = {id(message) for message in loaded.messages}
    loaded.prompts = {p: m for p, m in loaded.prompts.items() if id(m) in present}
    return loaded


def parse_tail(raw: bytes, path: Path) -> LoadedSession:
    """The newest lines of a transcript (session/tail.py), for showing them before the
    whole file is read: their `history`, and their displays as recorded
    (`raw_displays`: validating them builds each display model, tens of milliseconds
    before the first of them could be drawn). Nothing is repaired or
    reported (the whole file's parse does both), and a rewind to a prompt before
    these lines cannot be applied: whoever shows them checks them against the whole
    file's history once it is read (`tail_agrees`)."""
    loaded = LoadedSession(path=path, session_id=path.stem)
    _Parser(loaded, raw_displays=True).parse(raw)
    loaded.notices.clear()
    return loaded


def tail_agrees(tail: LoadedSession, whole: LoadedSession) -> bool:
    """The tail's history is the end of the whole file's (nothing before the tail
    changed what it shows)."""
    count = len(tail.history)
    return count <= len(whole.history) and whole.history[len(whole.history) - count :] == (
        tail.history
    )


class _Parser:
    def __init__(
        self, loaded: LoadedSession, *, context_only: bool = False, raw_displays: bool = False
    ) -> None:
        self.loaded = loaded
        self.context_only = context_only
        self.raw_displays = raw_displays
        self.bad_lines: list[int] = []
        self.acknowledged: set[int] = set()
        self.unknown: dict[str, int] = {}
        self.newer: int | None = None
        self.cut_last = False
        self.torn = 0
        # The prompt id of each message of `messages` and of `history` (None: not a prompt).
        self.message_prompts: list[str | None] = []
        self.history_prompts: list[str | None] = []
        # The usage of each answer of `messages` (None: another message, or not counted).
        self.message_usages: list[Usage | None] = []

    def parse(self, raw: bytes | bytearray) -> None:
        """Each line decoded and parsed on its own: a long transcript is tens of
        megabytes, and its text and its lines whole would hold twice that again while
        the parse builds what stays (and leave the heap fragmented behind it)."""
        spans = _line_spans(raw)
        # The line a crash may have cut: the last, when the file does not end cleanly.
        self.torn = 0 if raw.endswith(b"\n") or not raw else len(spans)
        start = _last_boundary(raw, spans) if self.context_only else 0
        with memoryview(raw) as view:
            for number, (begin, end) in enumerate(spans, start=1):
                if 1 < number <= start:  # before the boundary: unread
                    continue
                self.line(str(view[begin:end], "utf-8", "replace"), number)
        self.loaded.prompts = {
            p: m for p, m in zip(self.message_prompts, self.loaded.messages, strict=True) if p
        }
        self.report()

    def line(self, line: str, number: int) -> None:
        if not line.strip():
            return
        try:
            record = json.loads(line)
        except ValueError:
            self.cut_last = self.cut_last or number == self.torn
            self.bad_lines.append(number)
            return
        if not isinstance(record, dict) or not isinstance(record.get("type"), str):
            self.bad_lines.append(number)
            return
        self.record(record, number)

    def record(self, record: dict[str, Any], number: int) -> None:
        loaded = self.loaded
        version = record.get("version")
        if isinstance(version, int) and version > records.FORMAT_VERSION:
            self.newer = max(self.newer or 0, version)
        kind = record["type"]
        if kind == records.SESSION:
            loaded.meta = {k: v for k, v in record.items() if k != "type"}
            if isinstance(record.get("sessionId"), str):
                loaded.session_id = record["sessionId"]
        elif kind in records.MESSAGE_TYPES:
            recorded_message = record.get("message")
            if not _valid_message(recorded_message, kind):
                self.bad_lines.append(number)
                return
            recorded = record.get("meta")
            meta: dict[str, Any] = recorded if isinstance(recorded, dict) else {}
            used = self.count(kind, meta)
            message = _as_message(kind, recorded_message["content"])
            prompt_id = meta.get("promptId") if isinstance(meta.get("promptId"), str) else None
            loaded.messages.append(message)
            self.message_prompts.append(prompt_id)
            self.message_usages.append(used if kind == records.ASSISTANT else None)
            if not meta.get("kept"):
                loaded.history.append(message)
                self.history_prompts.append(prompt_id)
                self.displays(meta.get("displays"))
            if isinstance(record.get("uuid"), str):
                loaded.last_uuid = record["uuid"]
        elif kind == records.COMPACT_BOUNDARY:
            loaded.messages = []
            self.message_prompts = []
            self.message_usages = []
            loaded.last_usage = Usage()
            loaded.compactions += 1
            if isinstance(record.get("uuid"), str):
                loaded.last_uuid = record["uuid"]
        elif kind == records.REWIND:
            self.rewind(record)
        elif kind == records.REPAIR:
            dropped = record.get("droppedLines")
            if isinstance(dropped, list):
                self.acknowledged.update(n for n in dropped if isinstance(n, int))
        else:
            self.unknown[kind] = self.unknown.get(kind, 0) + 1

    def rewind(self, record: dict[str, Any]) -> None:
        """Back to just before the prompt the record names (where it is still present)."""
        loaded, prompt_id = self.loaded, record.get("promptId")
        if prompt_id in self.message_prompts:
            cut = self.message_prompts.index(prompt_id)
            del loaded.messages[cut:], self.message_prompts[cut:], self.message_usages[cut:]
            counted = [u for u in self.message_usages if u is not None]
            loaded.last_usage = counted[-1] if counted else Usage()
        if prompt_id in self.history_prompts:
            cut = self.history_prompts.index(prompt_id)
            del loaded.history[cut:], self.history_prompts[cut:]
        if isinstance(record.get("uuid"), str):
            loaded.last_uuid = record["uuid"]

    def displays(self, recorded: object) -> None:
        if not isinstance(recorded, dict):
            return
        if self.raw_displays:
            self.loaded.raw_displays.update((str(key), data) for key, data in recorded.items())
            return
        from agentcli.tools.display import load_display  # pydantic: a transcript with displays

        for tool_use_id, data in recorded.items():
            display = load_display(data)
            if display is not None:
                self.loaded.displays[str(tool_use_id)] = display

    def count(self, kind: str, meta: dict[str, Any]) -> Usage | None:
        """Add a recorded request's usage to the totals (a kept copy was counted before);
        that usage, if any."""
        raw = meta.get("usage")
        if not isinstance(raw, dict) or meta.get("kept"):
            return None
        try:
            used = Usage.from_api(raw)
        except (TypeError, ValueError):
            return None
        loaded = self.loaded
        model = meta.get("model") or loaded.meta.get("model") or ""
        before = loaded.totals
        loaded.totals = SessionTotals(
            usage=before.usage + used,
            cost_usd=add_cost(before.cost_usd, cost_usd(str(model), used)),
            turns=before.turns + (kind == records.ASSISTANT),
        )
        if kind == records.ASSISTANT:
            loaded.last_usage = used
        return used

    def report(self) -> None:
        loaded, name = self.loaded, self.loaded.path.name
        fresh = [n for n in self.bad_lines if n not in self.acknowledged]
        loaded.dropped_lines = fresh
        if self.cut_last and fresh and fresh[-1] == self.bad_lines[-1]:
            loaded.notices.append(
                f"{name}: the last line was cut off (agentcli stopped while writing it); dropped it"
            )
            fresh = fresh[:-1]
        if fresh:
            shown = ", ".join(str(n) for n in fresh[:5]) + (" ..." if len(fresh) > 5 else "")
            loaded.notices.append(f"{name}: skipped unreadable line(s) {shown}")
        for kind, count in sorted(self.unknown.items()):
            loaded.notices.append(f"{name}: skipped {count} record(s) of unknown type {kind!r}")
        if self.newer is not None:
            loaded.notices.append(
                f"{name}: written by a newer agentcli (format version {self.newer}, this one "
                f"reads {records.FORMAT_VERSION}); loaded what this version understands"
            )


def _line_spans(raw: bytes | bytearray) -> list[tuple[int, int]]:
    """(start, end) of each line of `raw` (split at newlines, as `str.split` does; the
    empty piece after a final newline is no line)."""
    spans, begin, size = [], 0, len(raw)
    while begin < size:
        end = raw.find(b"\n", begin)
        if end < 0:
            end = size
        spans.append((begin, end))
        begin = end + 1
    return spans


def _last_boundary(raw: bytes | bytearray, spans: list[tuple[int, int]]) -> int:
    """The line number (1-based) just before the last compact boundary, 0 if none.
    Only lines that mention the record type are parsed, from the end, and only a
    line whose record really is a boundary counts."""
    mark = f'"{records.COMPACT_BOUNDARY}"'.encode()
    for index in range(len(spans) - 1, 0, -1):
        begin, end = spans[index]
        if raw.find(mark, begin, end) < 0:
            continue
        try:
            record = json.loads(raw[begin:end].decode("utf-8", "replace"))
        except ValueError:
            continue
        if isinstance(record, dict) and record.get("type") == records.COMPACT_BOUNDARY:
            return index
    return 0


def _valid_message(message: object, role: str) -> TypeGuard[dict[str, Any]]:
    """A recorded message the conversation can hold: the record's role, and content that
    is a string or blocks that each say their `type`."""
    if not isinstance(message, dict) or message.get("role", role) != role:
        return False
    content = message.get("content")
    if isinstance(content, str):
        return True
    return isinstance(content, list) and all(
        isinstance(b, dict) and isinstance(b.get("type"), str) for b in content
    )


def _as_message(role: Role, content: str | list[dict[str, Any]]) -> Message:
    """A checked record's message (`_valid_message`), its blocks taken as the kinds
    their `type` says (as core/messages.py `as_block` does), the list kept as read."""
    if isinstance(content, str):
        return {"role": role, "content": content}
    return {"role": role, "content": cast("list[Block]", content)}


def _repair(loaded: LoadedSession) -> None:
    """Make `messages` a conversation the API accepts, saying what was changed."""
    name = loaded.path.name
    messages = loaded.messages
    fixed: list[Message] = []
    open_ids: list[str] = []  # tool_use ids of the last assistant message awaiting results
    dropped_results = 0
    interrupted = 0
    for message in messages:
        if message["role"] == "assistant":
            if open_ids:
                interrupted += len(open_ids)
                fixed.append(_interrupted(open_ids))
            open_ids = [b["id"] for b in _blocks(message) if _is_tool_use_with_id(b)]
            fixed.append(message)
            continue
        blocks = _blocks(message)
        kept: list[Block] = []
        for block in blocks:
            if block.get("type") == "tool_result":
                answered = block.get("tool_use_id")
                if isinstance(answered, str) and answered in open_ids:
                    open_ids.remove(answered)
                else:
                    dropped_results += 1
                    continue
            kept.append(block)
        if open_ids:
            # A person's message arrived while calls had no results: the calls
            # were cut off (results go first when the messages are merged).
            interrupted += len(open_ids)
            fixed.append(_interrupted(open_ids))
            open_ids = []
        if kept or isinstance(message["content"], str):
            fixed.append({"role": "user", "content": kept} if len(kept) != len(blocks) else message)
    if open_ids:
        interrupted += len(open_ids)
        synthetic = _interrupted(open_ids)
        fixed.append(synthetic)
        loaded.synthetic.append(synthetic)
    if interrupted:
        loaded.notices.append(
            f"{name}: {interrupted} tool call(s) had no result "
            "(agentcli stopped while they ran); marked them as interrupted"
        )
    if dropped_results:
        loaded.notices.append(
            f"{name}: dropped {dropped_results} tool result(s) whose call is not in the transcript"
        )
    if fixed and fixed[0]["role"] != "user":
        fixed.insert(0, user_message("(The start of this conversation could not be loaded.)"))
        loaded.notices.append(f"{name}: the conversation did not start with a user message")
    loaded.messages = fixed


def _interrupted(ids: list[str]) -> Message:
    return user_message(
        [
            {
                "type": "tool_result",
                "tool_use_id": tool_id,
                "content": INTERRUPTED_MESSAGE,
                "is_error": True,
            }
            for tool_id in ids
        ]
    )


def _is_tool_use_with_id(block: Block) -> TypeGuard[ToolUseBlock]:
    return block.get("type") == "tool_use" and isinstance(block.get("id"), str)


def _blocks(message: Message) -> list[Block]:
    content = message.get("content")
    return content if isinstance(content, list) else []
