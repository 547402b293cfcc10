"""Compaction: when the context fills up, summarise the older history.

Before each model request (the loop's checkpoint) the compactor estimates the
request's size: the API's own count for the last request (its usage), plus an
estimate for what was added since. Past the threshold (85% of the model's
window by default; AGENTCLI_AUTOCOMPACT_PCT overrides) the older messages are
sent to the model with a request for a summary, and the conversation becomes
one message holding the summary and what must not be paraphrased (the person's
prompts, the todo list, the files read and changed, the approved plan:
engine/carry_over.py), followed by the most recent messages, kept verbatim.
The memory files are read again into the system prompt. `/compact [focus]`
does the same on request. Settings' `autoCompact: false` turns the automatic
one off (`Compactor(auto=False)`); `/compact` still works.

Each compaction reports what it kept and what it summarised
(`CompactionReport`): the text every front end shows, and the facts (the
`Compacted` notice) that stream-json and the SDK send as a `compact_boundary`
system message.

Hooks: PreCompact runs first (`trigger` manual/auto, `custom_instructions`:
the focus of `/compact`); its block (exit 2, `decision: "block"`) leaves the
conversation as it is, and is not counted as a failure (automatic compaction
tries again before the next request). PostCompact runs after a compaction
that succeeded, with the summary (`compact_summary`).

The transcript keeps everything: the writer records a compact boundary, the
summary and the kept messages after it. A compaction that fails (a model
error, an interruption, an empty summary) changes nothing.

The compactor works on what `Compactable` lists (a QueryEngine is one): the
conversation (engine/conversation.py), the model provider, and where the
summary's cost and the new messages are told.
"""

from __future__ import annotations

import os
from collections.abc import AsyncGenerator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from agentcli.core.abort import AbortSignal
from agentcli.core.messages import Message, is_text, normalize_for_api, user_message
from agentcli.core.usage import Usage
from agentcli.engine.carry_over import Carried, gather, message_of
from agentcli.engine.compaction_files import shell_changed_files
from agentcli.engine.conversation import Conversation, MessageMeta
from agentcli.engine.events import Event, Notice
from agentcli.engine.model_stream import stream_model
from agentcli.engine.windows import context_window, estimate_tokens
from agentcli.hooks.events import Hooks
from agentcli.providers.base import (
    BlockCompleted,
    MessageCompleted,
    ModelError,
    ModelRequest,
    Provider,
)
from agentcli.tools.base import Workspace

DEFAULT_THRESHOLD = 0.85
# At the default threshold, of the window: what is kept verbatim after the summary, and
# the budget of the person's prompts carried from the summarised part. Both shrink with a
# lower threshold (Compactor.share).
KEEP_RATIO = 0.15
PROMPT_RATIO = 0.05
SUMMARY_MAX_TOKENS = 8_000
MAX_AUTO_FAILURES = 3

SUMMARY_REQUEST = """\
Your context window is nearly full, so this conversation is about to be compacted: \
everything above will be replaced by a summary you write now. Do not call any tools. \
Write a summary that lets you carry on the work without the original messages:

1. The user's requests and intent, in their own words where it matters.
2. Key technical facts and decisions: the architecture, conventions and constraints found.
3. Files read, created or changed, with why, and the important code (signatures, snippets).
4. Errors met and how they were fixed; what the user corrected or asked to do differently.
5. Open tasks, and exactly what was being worked on last.
6. The next step, if there is one, consistent with the user's latest request.

Answer with the summary only."""

SUMMARY_NOTE = (
    "\n\nThe user's prompts, the todo list, the names of the files read and changed "
    "and the approved plan are carried verbatim beside your summary: summarise the work, "
    "do not copy them."
)


def threshold_from_env(default: float = DEFAULT_THRESHOLD) -> float:
    raw = os.environ.get("AGENTCLI_AUTOCOMPACT_PCT", "").strip()
    try:
        value = float(raw) / 100 if raw else default
    except ValueError:
        return default
    return value if 0 < value <= 1 else default


class Compactable(Conversation, Protocol):
    """A conversation the compactor may summarise the older part of."""

    @property
    def provider(self) -> Provider | None:
        """Where the summary is asked for; None: no model is configured yet."""

    def account(self, usage: Usage, model: str) -> None:
        """Add the summary request's tokens and cost to the session's totals."""

    def notify(self, message: Message, meta: MessageMeta) -> None:
        """Tell the transcript of a message of the compacted conversation."""

    def conversation_compacted(self) -> None:
        """The older messages were replaced by a summary (earlier counts are void)."""

    def prompt_messages(self) -> list[Message]:
        """The person's prompts among the messages (not tool results, not notes)."""

    @property
    def workspace(self) -> Workspace:
        """What the tools read and wrote (engine/compaction_files.py asks the disk)."""

    def reload_memory(self) -> list[Path] | None:
        """Read the memory files again into the system prompt; the files read (None:
        this conversation's system prompt carries no memory files)."""

    @property
    def hooks(self) -> Hooks | None:
        """The session's hooks: PreCompact before a compaction, PostCompact after."""


@dataclass
class CompactionReport:
    """What one compaction kept and what it summarised."""

    trigger: str  # "auto" | "manual"
    pre_tokens: int
    post_tokens: int
    summarized: int  # messages replaced by the summary
    kept: int  # recent messages kept verbatim
    carried: Carried
    memory_files: list[Path] | None  # read again; None: no memory files in this prompt
    summary: str = ""  # what the model wrote

    def describe(self) -> str:
        """The lines the person is shown."""
        kept = [f"the {self.kept} most recent message(s)", *self.carried.describe()]
        if self.memory_files:
            names = ", ".join(path.name for path in self.memory_files)
            kept.append(f"the memory files, read again ({names})")
        summarised = f"{self.summarized} earlier message(s)"
        if self.carried.skipped_prompts:
            summarised += f", {self.carried.skipped_prompts} of your prompts among them"
        return (
            f"Compacted the conversation (about {self.pre_tokens:,} -> "
            f"{self.post_tokens:,} tokens).\n"
            f"Kept verbatim: {'; '.join(kept)}.\n"
            f"Summarised: {summarised}."
        )

    def to_dict(self) -> dict[str, Any]:
        """The facts, for a program (stream-json's `compact_metadata`)."""
        carried = self.carried
        return {
            "trigger": self.trigger,
            "pre_tokens": self.pre_tokens,
            "post_tokens": self.post_tokens,
            "summarized_messages": self.summarized,
            "kept_messages": self.kept,
            "kept_prompts": len(carried.prompts),
            "summarized_prompts": carried.skipped_prompts,
            "todos": len(carried.todos or []),
            "files_read": list(carried.files_read),
            "files_changed": list(carried.files_changed),
            "plan": carried.plan is not None,
            "memory_files": [str(p) for p in self.memory_files or []],
        }


@dataclass
class CompactionOutcome:
    ok: bool
    message: str
    pre_tokens: int = 0
    post_tokens: int = 0
    summarized: int = 0
    kept: int = 0
    report: CompactionReport | None = None
    blocked: bool = False  # a PreCompact hook said no: not a failure, tried again later


@dataclass(frozen=True, slots=True)
class Compacted(Notice):
    """A compaction that succeeded: a notice (its text is the report's lines) with the
    report itself, for front ends that say more (stream-json's compact_boundary)."""

    report: CompactionReport | None = field(default=None, kw_only=True)


class Compactor:
    """Watches one engine's context and compacts it (auto or on request).

    The engine tells it the size of each request the API counted (`measured()`)
    and runs `before_request()` at the loop's checkpoint.
    """

    def __init__(
        self,
        *,
        threshold: float | None = None,
        window: int | None = None,
        keep_tokens: int | None = None,
        prompt_tokens: int | None = None,
        auto: bool = True,
        summary_max_tokens: int = SUMMARY_MAX_TOKENS,
    ) -> None:
        self.threshold = threshold if threshold is not None else threshold_from_env()
        self._window = window
        self._keep_tokens = keep_tokens
        self._prompt_tokens = prompt_tokens
        self.auto = auto
        self.summary_max_tokens = summary_max_tokens
        self.failures = 0
        self.compactions = 0
        # (messages covered, tokens) of the last request the API counted.
        self._anchor: tuple[int, int] | None = None

    def measured(self, message_count: int, usage: Usage) -> None:
        """A request the API counted: the first `message_count` messages (its answer
        included) hold `usage`'s context and output tokens."""
        self._anchor = (message_count, usage.context_tokens + usage.output_tokens)

    def reset(self) -> None:
        """Forget the conversation measured so far (the engine started a new session)."""
        self._anchor = None
        self.failures = 0

    def window(self, conversation: Conversation) -> int:
        config = conversation.config
        return self._window or context_window(config.model, config.models)

    @property
    def share(self) -> float:
        """How much of KEEP_RATIO and PROMPT_RATIO a compaction keeps: all of them at the
        default threshold, proportionally less below it. What is kept is thus a share of
        the threshold, about a quarter of it, never of the window alone: with
        AGENTCLI_AUTOCOMPACT_PCT=25, keeping 20% of the window would leave the
        conversation at the threshold, and every next request would compact again."""
        return min(1.0, self.threshold / DEFAULT_THRESHOLD)

    def keep_tokens(self, conversation: Conversation) -> int:
        return self._keep_tokens or int(self.window(conversation) * KEEP_RATIO * self.share)

    def prompt_tokens(self, conversation: Conversation) -> int:
        """The budget of the person's prompts carried from the summarised part."""
        return self._prompt_tokens or int(self.window(conversation) * PROMPT_RATIO * self.share)

    # -- measuring --------------------------------------------------------------

    def estimate_request_tokens(self, conversation: Conversation) -> int:
        """The next request's input tokens: the API's count plus an estimate of the rest."""
        messages = conversation.messages
        anchor = self._anchor
        if anchor is not None and anchor[0] <= len(messages):
            tail = messages[anchor[0] :]
            return anchor[1] + (estimate_tokens(_shaped(conversation, tail)) if tail else 0)
        return (
            estimate_tokens(conversation.system)
            + estimate_tokens(conversation.visible_tools().schemas())
            + estimate_tokens(_shaped(conversation, normalize_for_api(messages)))
        )

    def limit(self, conversation: Conversation) -> int:
        return int(self.window(conversation) * self.threshold)

    def should_compact(self, conversation: Conversation) -> bool:
        if not self.auto or self.failures >= MAX_AUTO_FAILURES or len(conversation.messages) < 2:
            return False
        return self.estimate_request_tokens(conversation) >= self.limit(conversation)

    # -- the hook at the loop's checkpoint ---------------------------------------

    async def before_request(
        self, engine: Compactable, abort: AbortSignal
    ) -> AsyncGenerator[Event, None]:
        if not self.should_compact(engine):
            return
        yield Notice("Context nearly full: compacting the conversation...")
        outcome = await self.compact(engine, trigger="auto", abort=abort)
        if outcome.ok:
            self.failures = 0
            yield Compacted(outcome.message, report=outcome.report)
        elif outcome.blocked:
            yield Notice(outcome.message, "warning")
        else:
            self.failures += 1
            yield Notice(
                f"Compaction failed, the conversation is unchanged: {outcome.message}", "warning"
            )

    # -- compacting -------------------------------------------------------------

    async def compact(
        self,
        engine: Compactable,
        *,
        focus: str = "",
        trigger: str = "manual",
        abort: AbortSignal | None = None,
    ) -> CompactionOutcome:
        """Summarise the older messages; on any failure leave the conversation as it was."""
        provider = engine.provider
        if provider is None:
            return CompactionOutcome(False, "no model provider is configured")
        messages = list(engine.messages)
        split = choose_split(messages, self.keep_tokens(engine))
        if split <= 0:
            return CompactionOutcome(False, "there is not enough history to compact yet")
        refused, hook_notices = await _pre_compact(engine.hooks, trigger, focus)
        if refused is not None:
            return refused
        pre_tokens = self.estimate_request_tokens(engine)
        instruction = SUMMARY_REQUEST + SUMMARY_NOTE
        if focus.strip():
            instruction += f"\n\nPay particular attention to: {focus.strip()}"
        request_messages = normalize_for_api([*messages[:split], user_message(instruction)])
        request = ModelRequest(
            model=engine.config.model,
            messages=_shaped(engine, request_messages),
            system=engine.system,
            tools=engine.visible_tools().schemas(),
            max_tokens=self.summary_max_tokens,
        )
        summary, usage, problem = await _summarize(provider, request, abort or AbortSignal())
        if usage is not None:
            engine.account(usage, engine.config.model)
        if problem is not None:
            return CompactionOutcome(False, problem)
        if engine.messages != messages:
            return CompactionOutcome(False, "the conversation changed while it was summarised")

        shell_changed = await shell_changed_files(messages, engine.workspace.read_files)
        carried = gather(
            messages, split, engine.prompt_messages(), self.prompt_tokens(engine), shell_changed
        )
        summary_message = message_of(summary, carried)
        kept = messages[split:]
        engine.messages[:] = [summary_message, *kept]
        self._anchor = None
        memory_files = engine.reload_memory()
        engine.conversation_compacted()
        self.compactions += 1
        info = {"trigger": trigger, "preTokens": pre_tokens, "kept": len(kept)}
        meta: MessageMeta = {"compact": info, "model": engine.config.model}
        if usage is not None:  # the transcript keeps what the summary cost
            meta["usage"] = usage.to_dict()
        engine.notify(summary_message, meta)
        for message in kept:
            engine.notify(message, {"kept": True})
        post = self.estimate_request_tokens(engine)
        report = CompactionReport(
            trigger, pre_tokens, post, split, len(kept), carried, memory_files, summary
        )
        if engine.hooks is not None:
            hook_notices += (await engine.hooks.post_compact(trigger, summary)).notices
        described = "\n".join([report.describe(), *hook_notices])
        return CompactionOutcome(True, described, pre_tokens, post, split, len(kept), report)


async def _pre_compact(
    hooks: Hooks | None, trigger: str, focus: str
) -> tuple[CompactionOutcome | None, list[str]]:
    """PreCompact: exit 2, `decision: "block"` or `continue: false` keeps the
    conversation as it is (Claude Code's); what it says for the person is returned."""
    if hooks is None:
        return None, []
    outcome = await hooks.pre_compact(trigger, focus.strip())
    why = outcome.block or outcome.stop
    if why is None:
        return None, list(outcome.notices)
    message = "\n".join([f"A PreCompact hook blocked compaction: {why}", *outcome.notices])
    return CompactionOutcome(False, message, blocked=True), []


def _shaped(conversation: Conversation, messages: list[Message]) -> list[Message]:
    shape = conversation.shape_request
    return shape(messages) if shape is not None else messages


def _starts_turn(message: Message) -> bool:
    """A place the kept part may begin: not a message of tool results (their calls
    would be summarised away)."""
    if message.get("role") != "user":
        return True
    content = message.get("content")
    return not (
        isinstance(content, list)
        and any(isinstance(b, dict) and b.get("type") == "tool_result" for b in content)
    )


def choose_split(messages: list[Message], keep_tokens: int) -> int:
    """Index of the first kept message: as much recent history as fits in
    `keep_tokens`, starting at a valid place; the last message is always kept."""
    if len(messages) < 2:
        return 0
    index, used = len(messages), 0
    while index > 1:
        cost = estimate_tokens(messages[index - 1])
        if used + cost > keep_tokens and index < len(messages):
            break
        used += cost
        index -= 1
    # Move forward to a valid start (summarising more), else back (keeping more).
    forward = next((i for i in range(index, len(messages)) if _starts_turn(messages[i])), None)
    if forward is not None:
        return forward
    backward = next((i for i in range(index - 1, 0, -1) if _starts_turn(messages[i])), None)
    return backward or 0


async def _summarize(
    provider: Provider, request: ModelRequest, abort: AbortSignal
) -> tuple[str, Usage | None, str | None]:
    """(summary text, usage, problem); problem is None on success."""
    texts: dict[int, str] = {}
    usage: Usage | None = None
    complete = False
    async for event in stream_model(provider, request, abort):
        match event:
            case BlockCompleted(index=index, block=block) if is_text(block):
                texts[index] = block.get("text", "")
            case MessageCompleted(usage=final):
                usage, complete = final, True
            case ModelError(message=message):
                return "", usage, f"the summary request failed: {message}"
    if abort.aborted:
        return "", usage, "interrupted"
    if not complete:
        return "", usage, "the summary response was cut off"
    summary = "\n\n".join(texts[i] for i in sorted(texts)).strip()
    if not summary:
        return "", usage, "the model returned an empty summary"
    return summary, usage, None
