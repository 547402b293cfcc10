"""What a compaction carries, verbatim, into the conversation that goes on.

The model's summary is a paraphrase, and what the person relies on must not be
paraphrased away ("never edit vendor/", said in the first prompt, has to bind
after the tenth compaction). So the message that replaces the summarised part
holds, besides the summary, each in a text block of its own (a fixed header
line, a blank line, then the text as it was):

- the person's prompts from the summarised part: the first prompt of the
  session always, then as many of the latest as fit in the prompt budget
  (oldest first); those in between are left to the summary, and the message
  says how many;
- the current todo list (the last TodoWrite call the tool accepted);
- the names of the files read (Read) and changed (Edit, Write, NotebookEdit),
  by calls that succeeded, as the model named them; and, when a shell command
  ran, the files changed on disk since the agent read or wrote them
  (compaction_files.py);
- the last plan the person approved (an ExitPlanMode call that ran).

A later compaction reads its predecessor's message back, block by block, by
the headers (`read_back`), so what one compaction carried the next carries
again, whatever the number of compactions and across a resume (the message is
in the transcript). The summary block is never read for headers: the model
writes it, and only whole blocks the compactor made are carried.

Not covered: files a Bash command reads, or writes that the session never read
or wrote (compaction_files.py says which are found), images and documents attached to a prompt (only its text is
carried), and prompts that alone pass the budget (the
first prompt is then carried up to the budget, marked as cut; a later one is
left to the summary). The memory files are not here: they are in the system
prompt, read again from disk after each compaction (engine/context.py
`with_memory`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from agentcli.core.messages import (
    Block,
    Message,
    is_text,
    is_tool_result,
    is_tool_use,
    user_message,
)
from agentcli.engine.windows import estimate_tokens

INTRO = (
    "This session continues an earlier conversation that ran out of context. "
    "The earlier part is summarised below; the blocks after the summary carry, verbatim, "
    "what the user said and what must not be lost; the messages after this one are the "
    "most recent part of the conversation, verbatim."
)
SUMMARY_BLOCK = INTRO + "\n\n<summary>\n{summary}\n</summary>"
# How every summary message began, this version's and earlier ones' (a summary alone).
OPENING = "This session continues an earlier conversation that ran out of context."

FIRST_PROMPT = "The user's first prompt of this session, verbatim"
LATER_PROMPT = "A later prompt of the user, verbatim"
SKIPPED_PROMPTS = "Prompts of the user left to the summary above"
TODOS = "The current todo list (from TodoWrite), as JSON"
FILES = (
    "Files read and changed so far (by the file tools, and those changed on disk "
    "after a shell command ran), as JSON"
)
FILES_OPENING = "Files read and changed so far"  # this version's header and earlier ones'
PLAN = "The plan the user approved (ExitPlanMode), verbatim"
CUT_NOTE = "[cut here: the rest of this prompt is in the session's transcript]"

READ_TOOLS = frozenset({"Read"})
CHANGE_TOOLS = frozenset({"Edit", "Write", "NotebookEdit"})
MAX_FILES = 200  # of each kind; the most recent are kept


@dataclass
class Carried:
    """What the compaction carries, besides the summary."""

    prompts: list[str] = field(default_factory=list)  # oldest first; [0] the first prompt
    first_is_first: bool = False  # prompts[0] is the session's first prompt
    skipped_prompts: int = 0  # prompts between the first and the carried ones
    todos: list[dict[str, Any]] | None = None  # None: no TodoWrite call (ever)
    files_read: list[str] = field(default_factory=list)
    files_changed: list[str] = field(default_factory=list)
    plan: str | None = None

    def describe(self) -> list[str]:
        """What it holds, in words, for the compaction's report."""
        parts = []
        if self.prompts:
            later = len(self.prompts) - (1 if self.first_is_first else 0)
            words = ["your first prompt"] if self.first_is_first else []
            if later:
                words.append(f"{later} later prompt{'s' * (later != 1)}")
            parts.append(" and ".join(words))
        if self.todos:
            parts.append(f"the todo list ({len(self.todos)} items)")
        if self.files_read or self.files_changed:
            parts.append(
                f"the names of {len(self.files_read)} file(s) read and "
                f"{len(self.files_changed)} changed"
            )
        if self.plan:
            parts.append("the approved plan")
        return parts


def is_carry_over(message: Message) -> bool:
    """Whether `message` is a compaction's summary message (of any version)."""
    blocks = _text_blocks(message)
    return bool(blocks) and message.get("role") == "user" and blocks[0].startswith(OPENING)


def read_back(message: Message) -> Carried:
    """What an earlier compaction's message carried (its blocks, by their headers)."""
    carried = Carried()
    if not is_carry_over(message):
        return carried
    for block in _text_blocks(message)[1:]:
        header, _, body = block.partition("\n\n")
        if header.startswith(FIRST_PROMPT):
            carried.prompts.insert(0, body)
            carried.first_is_first = True
        elif header.startswith(LATER_PROMPT):
            carried.prompts.append(body)
        elif header.startswith(SKIPPED_PROMPTS):
            carried.skipped_prompts = _count_in(header)
        elif header.startswith(TODOS):
            carried.todos = _json_list(body)
        elif header.startswith(FILES_OPENING):
            files = _json_object(body)
            carried.files_read = _strings(files.get("read"))
            carried.files_changed = _strings(files.get("changed"))
        elif header.startswith(PLAN):
            carried.plan = body
    return carried


def gather(
    messages: list[Message],
    split: int,
    prompts: Iterable[Message],
    prompt_tokens: int,
    shell_changed: Iterable[str] = (),
) -> Carried:
    """What to carry when `messages[:split]` is summarised (`messages[split:]` is kept
    verbatim). `prompts`: the messages that are the person's prompts; `prompt_tokens`:
    the budget of the prompts carried (the first one counts against it too);
    `shell_changed`: files changed on disk since the agent saw them, when a shell
    command ran (compaction_files.py)."""
    prompt_ids = {id(message) for message in prompts}
    # A prompt is never taken for a summary, whatever its words.
    compacted = bool(messages) and id(messages[0]) not in prompt_ids
    compacted = compacted and is_carry_over(messages[0])
    earlier = read_back(messages[0]) if compacted else Carried()
    start = 1 if compacted else 0
    summarised = [
        _prompt_text(m) for m in messages[start:split] if id(m) in prompt_ids and _prompt_text(m)
    ]
    carried = Carried()
    first_is_first = earlier.first_is_first or (not compacted and bool(summarised))
    candidates = [*earlier.prompts, *summarised]
    carried.prompts, dropped = _within_budget(candidates, prompt_tokens, first_is_first)
    carried.first_is_first = first_is_first and bool(carried.prompts)
    carried.skipped_prompts = earlier.skipped_prompts + dropped

    carried.todos = earlier.todos
    carried.plan = earlier.plan
    read, changed = list(earlier.files_read), list(earlier.files_changed)
    for name, inp in accepted_calls(messages):
        if name == "TodoWrite" and isinstance(inp.get("todos"), list):
            carried.todos = [t for t in inp["todos"] if isinstance(t, dict)]
        elif name == "ExitPlanMode" and isinstance(inp.get("plan"), str):
            carried.plan = inp["plan"]
        elif name in READ_TOOLS | CHANGE_TOOLS:
            path = inp.get("file_path", inp.get("notebook_path"))  # NotebookEdit's name
            if isinstance(path, str):
                _note(read if name in READ_TOOLS else changed, path)
    for path in shell_changed:
        _note(changed, path)
    carried.files_read, carried.files_changed = read[-MAX_FILES:], changed[-MAX_FILES:]
    return carried


def message_of(summary: str, carried: Carried) -> Message:
    """The message that stands for the summarised part: the summary, then each carried
    part in a block of its own."""
    blocks: list[Block] = [_text(SUMMARY_BLOCK.format(summary=summary))]
    for index, prompt in enumerate(carried.prompts):
        header = FIRST_PROMPT if index == 0 and carried.first_is_first else LATER_PROMPT
        blocks.append(_text(f"{header}:\n\n{prompt}"))
        if index == 0 and carried.skipped_prompts:
            count = carried.skipped_prompts
            blocks.append(_text(f"{SKIPPED_PROMPTS}: {count}."))
    if carried.todos:
        blocks.append(_text(f"{TODOS}:\n\n{json.dumps(carried.todos, ensure_ascii=False)}"))
    if carried.files_read or carried.files_changed:
        files = {"read": carried.files_read, "changed": carried.files_changed}
        blocks.append(_text(f"{FILES}:\n\n{json.dumps(files, ensure_ascii=False)}"))
    if carried.plan:
        blocks.append(_text(f"{PLAN}:\n\n{carried.plan}"))
    return user_message(blocks)


def accepted_calls(messages: Iterable[Message]) -> Iterator[tuple[str, dict[str, Any]]]:
    """(tool name, input) of each call whose result was not an error, in the order of
    the results."""
    calls: dict[str, tuple[str, dict[str, Any]]] = {}
    for message in messages:
        content = message.get("content")
        for block in content if isinstance(content, list) else []:
            if not isinstance(block, dict):
                continue
            if is_tool_use(block) and isinstance(block.get("input"), dict):
                calls[str(block.get("id"))] = (str(block.get("name")), block["input"])
            elif is_tool_result(block) and not block.get("is_error"):
                call = calls.pop(str(block.get("tool_use_id")), None)
                if call is not None:
                    yield call


def _within_budget(prompts: list[str], budget: int, keep_first: bool) -> tuple[list[str], int]:
    """The prompts to carry (the first, if `keep_first`, then the latest that fit) and
    how many were left out."""
    if not prompts:
        return [], 0
    head: list[str] = []
    rest = prompts
    used = 0
    if keep_first:
        first = prompts[0]
        if estimate_tokens(first) > budget:
            first = first[: max(budget, 0) * 4] + "\n" + CUT_NOTE
        head, rest, used = [first], prompts[1:], estimate_tokens(first)
    tail: list[str] = []
    for prompt in reversed(rest):
        cost = estimate_tokens(prompt)
        if used + cost > budget:
            break
        tail.insert(0, prompt)
        used += cost
    return head + tail, len(rest) - len(tail)


def _prompt_text(message: Message) -> str:
    """A prompt's text, as the person wrote it (its text blocks, in order)."""
    content = message.get("content")
    if isinstance(content, str):
        return content
    blocks = [b for b in content or [] if isinstance(b, dict) and is_text(b)]
    return "\n\n".join(b["text"] for b in blocks if b.get("text"))


def _text_blocks(message: Message) -> list[str]:
    content = message.get("content")
    if isinstance(content, str):
        return [content]
    if not isinstance(content, list):
        return []
    return [b["text"] for b in content if isinstance(b, dict) and is_text(b)]


def _text(value: str) -> Block:
    return {"type": "text", "text": value}


def _note(names: list[str], name: str) -> None:
    """Add `name` as the most recent (once)."""
    if name in names:
        names.remove(name)
    names.append(name)


def _count_in(header: str) -> int:
    digits = "".join(c for c in header.rsplit(":", 1)[-1] if c.isdigit())
    return int(digits) if digits else 0


def _json_list(body: str) -> list[dict[str, Any]] | None:
    try:
        value = json.loads(body)
    except ValueError:
        return None
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else None


def _json_object(body: str) -> dict[str, Any]:
    try:
        value = json.loads(body)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _strings(value: object) -> list[str]:
    return [item for item in value if isinstance(item, str)] if isinstance(value, list) else []
