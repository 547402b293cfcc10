"""`query()`: the execution loop of the seed, as an async generator of events.

    1. send the messages and tool definitions to the model
    2. if the response holds no tool_use, stop (`completed`)
    3. run the tools, one tool_result per tool_use
    4. append the assistant message and the results; go back to 1

Before every model request there is one fixed checkpoint: the abort signal
and the turn limit are looked at there and nowhere else, so every request
that leaves has a result for each of its tool_use blocks.

`tool_use` is detected from the content blocks received, never from
`stop_reason` (which is not reliable). The last event is always `TurnEnded`.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import aclosing
from dataclasses import dataclass, field
from typing import Any

from agentcli.engine.abort import AbortSignal
from agentcli.engine.events import (
    ApiRetry,
    AssistantMessage,
    EndReason,
    Event,
    Notice,
    RequestStarted,
    TextDelta,
    ThinkingDelta,
    TurnEnded,
    UserMessage,
)
from agentcli.engine.messages import normalize_for_api, user_message
from agentcli.engine.orchestration import INTERRUPTED_MESSAGE, ToolRunner
from agentcli.engine.usage import Usage
from agentcli.hooks.events import Hooks
from agentcli.hooks.stop import StopGuard
from agentcli.permissions.gate import PermissionGate
from agentcli.providers.base import (
    BlockCompleted,
    MessageCompleted,
    ModelError,
    ModelRequest,
    Provider,
    ProviderEvent,
    Retrying,
    StreamStarted,
    TextChunk,
    ThinkingChunk,
)
from agentcli.tools.base import Workspace
from agentcli.tools.registry import ToolRegistry
from agentcli.wellformed import scrub

INTERRUPT_MARKER = "[Request interrupted by user]"
MODEL_ERROR_RESULT = "Not run: the model's response failed before this turn could continue."


@dataclass
class QueryParams:
    """Everything one run of the loop needs. `messages` is extended in place."""

    messages: list[dict[str, Any]]
    provider: Provider
    tools: ToolRegistry
    gate: PermissionGate
    workspace: Workspace
    model: str
    system: list[dict[str, Any]] = field(default_factory=list)
    max_tokens: int = 32000
    max_turns: int | None = None
    abort: AbortSignal = field(default_factory=AbortSignal)
    start_tools_while_streaming: bool = True
    # Shapes each request's messages (prompt-cache breakpoints, budgets) without
    # touching the conversation itself.
    prepare_messages: Callable[[list[dict[str, Any]]], list[dict[str, Any]]] | None = None
    # Runs at the checkpoint before each request (auto-compaction); may replace
    # `messages` in place and yields events (notices) of its own.
    before_request: Callable[[AbortSignal], AsyncIterator[Event]] | None = None
    request_extra: dict[str, Any] = field(default_factory=dict)
    hooks: Hooks | None = None  # PreToolUse/PostToolUse/Stop (agentcli/hooks)


async def query(params: QueryParams) -> AsyncIterator[Event]:
    """Run the loop until it ends; the last event is always `TurnEnded`."""
    runners: list[ToolRunner] = []
    try:
        async with aclosing(_run_loop(params, runners)) as events:
            async for event in events:
                yield event
    finally:
        # A consumer that stops listening early must not leave tools running
        # (QueryEngine answers any tool_use left without a result).
        for runner in runners:
            await runner.cancel_and_wait()
        if params.hooks is not None:
            params.hooks.take_stop()  # a stop request dies with the run that made it


async def _run_loop(params: QueryParams, runners: list[ToolRunner]) -> AsyncIterator[Event]:
    turn = 1
    usage = Usage()
    stop_guard = StopGuard()
    abort = params.abort
    while True:
        # -- the checkpoint ---------------------------------------------------
        if abort.aborted:
            params.messages.append(user_message([_marker()]))
            yield UserMessage(params.messages[-1])
            yield TurnEnded(
                EndReason.ABORTED_TOOLS if turn > 1 else EndReason.ABORTED_STREAMING,
                turn - 1,
                usage,
                abort.reason,
            )
            return
        if params.max_turns is not None and turn > params.max_turns:
            yield TurnEnded(
                EndReason.MAX_TURNS,
                turn - 1,
                usage,
                f"reached the limit of {params.max_turns} turns",
            )
            return

        if params.before_request is not None:
            async for event in params.before_request(abort):
                yield event

        # -- 1. the model request ---------------------------------------------
        yield RequestStarted(turn)
        runner = ToolRunner(
            params.tools,
            params.gate,
            params.workspace,
            abort,
            start_while_streaming=params.start_tools_while_streaming,
            hooks=params.hooks,
        )
        runners.append(runner)
        collector = _Collector()
        request = _build_request(params)
        failure: ModelError | None = None
        async with aclosing(_stream_model(params.provider, request, abort)) as provider_events:
            async for event in provider_events:
                match event:
                    case TextChunk(index=index, text=text):
                        collector.add_text(index, text)
                        yield TextDelta(text, index)
                    case ThinkingChunk(index=index, text=text):
                        yield ThinkingDelta(text, index)
                    case BlockCompleted(index=index, block=block):
                        collector.complete_block(index, block)
                        if block.get("type") == "tool_use":
                            yield runner.add(block)
                    case StreamStarted(model=model, usage=start_usage):
                        collector.model, collector.usage = model, start_usage
                    case MessageCompleted(stop_reason=stop_reason, usage=final_usage):
                        collector.stop_reason, collector.usage = stop_reason, final_usage
                        collector.complete = True
                    case Retrying(attempt=a, max_retries=m, delay_s=d, error=e, status=s):
                        yield ApiRetry(a, m, d, e, s)
                    case ModelError() as error:
                        failure = error
                for tool_event in runner.ready_events():
                    yield tool_event
        usage = usage + collector.usage
        if failure is None and not collector.complete and not abort.aborted:
            failure = ModelError("the response ended before it was complete")

        # -- an ending while streaming: keep what is complete, fill in results --
        if failure is not None or abort.aborted or not collector.complete:
            stop_message = INTERRUPTED_MESSAGE if failure is None else MODEL_ERROR_RESULT
            assistant = collector.message(partial=True)
            if assistant is not None:
                params.messages.append(assistant)
                yield AssistantMessage(
                    assistant,
                    collector.usage,
                    collector.stop_reason,
                    collector.model or params.model,
                )
            async for event in runner.stop(stop_message):
                yield event
            if failure is None:
                _append_results(params.messages, runner, interrupted=True)
                yield UserMessage(params.messages[-1])
                yield TurnEnded(EndReason.ABORTED_STREAMING, turn, usage, abort.reason)
            else:
                if runner.calls:
                    _append_results(params.messages, runner, interrupted=False)
                    yield UserMessage(params.messages[-1])
                yield TurnEnded(EndReason.MODEL_ERROR, turn, usage, failure.message)
            return

        assistant = collector.message(partial=False)
        params.messages.append(assistant)
        yield AssistantMessage(
            assistant, collector.usage, collector.stop_reason, collector.model or params.model
        )

        # -- 2. no tool_use: done ---------------------------------------------
        if not runner.calls:
            if params.hooks is not None and not abort.aborted:
                stop = await _unless_aborted(stop_guard.check(params.hooks), abort)
                if stop is None:  # Esc while the Stop hook ran: the answer stands
                    yield TurnEnded(EndReason.COMPLETED, turn, usage, abort.reason)
                    return
                for text in stop.notices:
                    yield Notice(text, "warning")
                if stop.end is not None:
                    yield TurnEnded(EndReason(stop.end), turn, usage, stop.message)
                    return
                if stop.feedback is not None:  # exit 2: the model goes on with the message
                    params.messages.append(user_message(stop.feedback))
                    yield UserMessage(params.messages[-1])
                    turn += 1
                    continue
            yield TurnEnded(EndReason.COMPLETED, turn, usage)
            return

        # -- 3. run the tools -------------------------------------------------
        async with aclosing(runner.run()) as tool_events:
            async for event in tool_events:
                yield event
        interrupted = abort.aborted
        _append_results(params.messages, runner, interrupted=interrupted)
        yield UserMessage(params.messages[-1])
        if interrupted:
            yield TurnEnded(EndReason.ABORTED_TOOLS, turn, usage, abort.reason)
            return

        hook_stop = params.hooks.take_stop() if params.hooks is not None else None
        if hook_stop is not None:  # a tool hook said `continue: false`
            yield TurnEnded(EndReason.HOOK_STOPPED, turn, usage, hook_stop)
            return

        # -- 4. next turn -----------------------------------------------------
        turn += 1


def _build_request(params: QueryParams) -> ModelRequest:
    messages = normalize_for_api(params.messages)
    if params.prepare_messages is not None:
        messages = params.prepare_messages(messages)
    return ModelRequest(
        model=params.model,
        messages=messages,
        system=params.system,
        tools=params.tools.schemas(),
        max_tokens=params.max_tokens,
        extra=params.request_extra,
    )


async def _stream_model(
    provider: Provider, request: ModelRequest, abort: AbortSignal
) -> AsyncIterator[ProviderEvent | ModelError]:
    """The provider's events, ending at once (without an error) when abort fires.

    The provider runs in its own task feeding a queue, and the abort signal
    drops a sentinel into the same queue: waiting costs one `queue.get()` per
    event, and an abort wakes us even while the network is silent.
    """
    queue: asyncio.Queue[Any] = asyncio.Queue()
    done = object()

    async def pump() -> None:
        try:
            async for event in provider.stream(request, abort):
                queue.put_nowait(event)
        except ModelError as error:
            queue.put_nowait(error)
        except Exception as exc:  # a provider bug still ends the turn cleanly
            queue.put_nowait(ModelError(f"{type(exc).__name__}: {exc}"))
        finally:
            queue.put_nowait(done)

    task = asyncio.create_task(pump(), name="model-stream")
    remove = abort.on_abort(lambda: queue.put_nowait(done))
    try:
        while True:
            item = await queue.get()
            if item is done:
                return
            yield item
    finally:
        remove()
        if not task.done():
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)


class _Collector:
    """The assistant message being received.

    Text is kept as it streams, so an interrupted answer keeps what the person
    already saw; other blocks count only once complete (a half-received
    tool_use has no input to run, and a thinking block needs its signature).
    """

    def __init__(self) -> None:
        self.blocks: dict[int, dict[str, Any]] = {}
        self.partial_text: dict[int, list[str]] = {}
        self.usage = Usage()
        self.stop_reason: str | None = None
        self.model: str | None = None
        self.complete = False

    def add_text(self, index: int, text: str) -> None:
        self.partial_text.setdefault(index, []).append(text)

    def complete_block(self, index: int, block: dict[str, Any]) -> None:
        self.partial_text.pop(index, None)
        # The conversation holds only valid Unicode, or no request could be sent again.
        self.blocks[index] = scrub(block)

    def message(self, *, partial: bool) -> dict[str, Any] | None:
        found = dict(self.blocks)
        if partial:
            for index, parts in self.partial_text.items():
                found[index] = {"type": "text", "text": scrub("".join(parts))}
        blocks = [found[i] for i in sorted(found) if _keep_block(found[i])]
        if not blocks:
            if partial:
                return None
            # The API rejects empty content; an empty answer is still an answer.
            blocks = [{"type": "text", "text": "(no content)"}]
        return {"role": "assistant", "content": blocks}


def _keep_block(block: dict[str, Any]) -> bool:
    kind = block.get("type")
    if kind == "text":  # the API rejects empty and whitespace-only text blocks
        return bool(block.get("text", "").strip())
    if kind == "thinking":
        return bool(block.get("signature"))
    return True


def _append_results(messages: list[dict[str, Any]], runner: ToolRunner, *, interrupted: bool):
    content = runner.results_message()["content"] if runner.calls else []
    if interrupted:
        content.append(_marker())
    messages.append(user_message(content))


def _marker() -> dict[str, Any]:
    return {"type": "text", "text": INTERRUPT_MARKER}


async def _unless_aborted(work: Awaitable[Any], abort: AbortSignal) -> Any:
    """`await work`, but cancel it and return None as soon as the abort signal fires."""
    task = asyncio.ensure_future(work)
    remove = abort.on_abort(task.cancel)
    try:
        return await task
    except asyncio.CancelledError:
        if not abort.aborted:
            raise
        return None
    finally:
        remove()
