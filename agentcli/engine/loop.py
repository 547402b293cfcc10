"""`query()`: the agent's execution loop, as an async generator of events.

One run of the loop answers one prompt. It repeats four steps, each a
function below:

    1. request the model: send the conversation and the tool definitions,
       stream the answer (`_request_model`);
    2. no tool_use in the answer: the run is done, unless a Stop hook sends
       the model on (`_without_tool_use`);
    3. run the tools, one tool_result per tool_use (`_run_tools`);
    4. append the results to the conversation and go back to 1
       (`_append_results_and_go_on`).

Before every request there is one fixed checkpoint (`_checkpoint`): the abort
signal and the turn limit are looked at there and nowhere else, so every
request that leaves has a result for each of its tool_use blocks. The steps
before a request (auto-compaction) run there too. A response that stops
before it is complete (an interruption, a model error) ends the run with what
was complete (`_end_while_streaming`).

`tool_use` is detected from the content blocks received, never from
`stop_reason` (which is not reliable). One stop reason does change the course:
`pause_turn`, the API pausing a long turn of its own server tools (web
search), is answered by sending the conversation back as it is, so the model
goes on where it stopped. The last event is always `TurnEnded`.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, Awaitable, Callable, Iterator
from contextlib import aclosing
from dataclasses import dataclass, field
from typing import Any, TypeVar

from agentcli.core.abort import AbortSignal
from agentcli.core.messages import (
    INTERRUPT_MARKER,
    INTERRUPTED_MESSAGE,
    Block,
    Message,
    SystemBlock,
    TextBlock,
    as_blocks,
    is_tool_use,
    normalize_for_api,
    text_of,
    user_message,
)
from agentcli.core.reasoning import Reasoning
from agentcli.core.usage import Usage
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
from agentcli.engine.model_stream import stream_model
from agentcli.engine.orchestration import ToolRunner
from agentcli.engine.parts import Checkpoints
from agentcli.engine.reply import Reply
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
from agentcli.tools.model_access import Accounting, ModelAccess, small_model_for
from agentcli.tools.registry import ToolRegistry

# The API stopped a long turn of its server tools (web search) to be sent back as is.
PAUSE_TURN = "pause_turn"
MODEL_ERROR_RESULT = "Not run: the model's response failed before this turn could continue."

RequestShaper = Callable[[list[Message]], list[Message]]
BeforeRequest = Callable[[AbortSignal], AsyncGenerator[Event, None]]
T = TypeVar("T")


@dataclass
class QueryParams:
    """Everything one run of the loop needs. `messages` is extended in place."""

    messages: list[Message]
    provider: Provider
    tools: ToolRegistry
    gate: PermissionGate
    workspace: Workspace
    model: str
    system: list[SystemBlock] = field(default_factory=list)
    max_tokens: int = 32000
    reasoning: Reasoning | None = None  # how hard the model thinks (core/reasoning.py)
    max_turns: int | None = None
    abort: AbortSignal = field(default_factory=AbortSignal)
    start_tools_while_streaming: bool = True
    # Shapes each request's messages (prompt-cache breakpoints, budgets) without
    # touching the conversation itself.
    shape_request: RequestShaper | None = None
    # Runs at the checkpoint before each request (auto-compaction); may replace
    # `messages` in place and yields events (notices) of its own.
    before_request: BeforeRequest | None = None
    request_extra: dict[str, Any] = field(default_factory=dict)
    hooks: Hooks | None = None  # PreToolUse/PostToolUse/Stop (agentcli/hooks)
    checkpoints: Checkpoints | None = None  # files recorded before tools write them
    # Read before each request when the tools may change during a run (MCP servers).
    tools_at_request: Callable[[], ToolRegistry] | None = None
    # The model of tools' side requests (WebFetch); None: tools/model_access.py picks.
    small_model: str | None = None
    # Adds a side request's tokens and cost to the session's totals (model, usage).
    account: Accounting | None = None


async def query(params: QueryParams) -> AsyncGenerator[Event, None]:
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


async def _run_loop(params: QueryParams, runners: list[ToolRunner]) -> AsyncGenerator[Event, None]:
    """Run each turn's steps in order, until one of them ends the run."""
    run = _Run(params)
    while not run.ended:
        for step in _turn(run, runners):
            # Closed at once when the consumer stops listening: a step may hold the
            # model stream, running tools or a hook's process.
            async with aclosing(step) as events:
                async for event in events:
                    yield event
            if run.ended:
                break


def _turn(run: _Run, runners: list[ToolRunner]) -> Iterator[AsyncGenerator[Event, None]]:
    """One turn: the steps to run, in order. Each step has run to its end before the
    next one is chosen, so the choice can depend on what it found."""
    yield _checkpoint(run)
    if (
        run.params.tools_at_request is not None
    ):  # a server's tools changed: the next request sees it
        run.params.tools = run.params.tools_at_request()
    runner = _new_runner(run.params)
    runners.append(runner)
    reply = Reply()
    yield _request_model(run, reply, runner)  # 1. request the model
    if reply.unfinished:
        yield _end_while_streaming(run, reply, runner)
    elif reply.stop_reason == PAUSE_TURN and not runner.calls:
        run.turn += 1  # the API paused its own tools' long turn: send it back to go on
    elif not runner.calls:
        yield _without_tool_use(run)  # 2. no tool_use: done
    else:
        yield _run_tools(runner)  # 3. run the tools
        yield _append_results_and_go_on(run, runner)  # 4. append the results, go on


@dataclass
class _Run:
    """One run of the loop: the turn it is on, what it used, whether it has ended."""

    params: QueryParams
    turn: int = 1
    usage: Usage = field(default_factory=Usage)
    stop_guard: StopGuard = field(default_factory=StopGuard)
    ended: bool = False

    def end(self, reason: EndReason, turns: int, error: str | None = None) -> TurnEnded:
        self.ended = True
        return TurnEnded(reason, turns, self.usage, error)

    def add_user(self, message: Message) -> UserMessage:
        self.params.messages.append(message)
        return UserMessage(message)

    def add_assistant(self, message: Message, reply: Reply) -> AssistantMessage:
        self.params.messages.append(message)
        model = reply.model or self.params.model
        return AssistantMessage(message, reply.usage, reply.stop_reason, model, reply.message_id)

    def add_results(self, runner: ToolRunner, *, interrupted: bool) -> UserMessage:
        """One user message: a result per call of the turn (and the marker, if interrupted)."""
        content: list[Block] = (
            as_blocks(runner.results_message()["content"]) if runner.calls else []
        )
        if interrupted:
            content.append(_marker())
        return self.add_user(user_message(content))


async def _checkpoint(run: _Run) -> AsyncGenerator[Event, None]:
    """Before every request: stop if aborted or out of turns, else the steps before a
    request (auto-compaction)."""
    params, abort = run.params, run.params.abort
    if abort.aborted:
        yield run.add_user(user_message([_marker()]))
        reason = EndReason.ABORTED_TOOLS if run.turn > 1 else EndReason.ABORTED_STREAMING
        yield run.end(reason, run.turn - 1, abort.reason)
        return
    if params.max_turns is not None and run.turn > params.max_turns:
        limit = f"reached the limit of {params.max_turns} turns"
        yield run.end(EndReason.MAX_TURNS, run.turn - 1, limit)
        return
    if params.before_request is not None:
        async with aclosing(params.before_request(abort)) as events:
            async for event in events:
                yield event


def _new_runner(params: QueryParams) -> ToolRunner:
    return ToolRunner(
        params.tools,
        params.gate,
        params.workspace,
        params.abort,
        start_while_streaming=params.start_tools_while_streaming,
        hooks=params.hooks,
        checkpoints=params.checkpoints,
        model=ModelAccess(
            params.provider,
            small_model_for(params.provider, params.small_model, params.model),
            params.account,
        ),
    )


async def _request_model(
    run: _Run, reply: Reply, runner: ToolRunner
) -> AsyncGenerator[Event, None]:
    """Step 1: stream one response into `reply`; each complete tool_use goes to the
    runner as it arrives. The complete answer joins the conversation; one that stops
    early is left `unfinished` for `_end_while_streaming`."""
    params = run.params
    yield RequestStarted(run.turn)
    request = _build_request(params)
    async with aclosing(stream_model(params.provider, request, params.abort)) as stream:
        async for provider_event in stream:
            event = _receive(provider_event, reply, runner)
            if event is not None:
                yield event
            for tool_event in runner.ready_events():
                yield tool_event
    run.usage = run.usage + reply.usage
    if params.abort.aborted:
        reply.interrupted = True
    elif reply.failure is None and not reply.complete:
        reply.failure = ModelError("the response ended before it was complete")
    if not reply.unfinished:
        yield run.add_assistant(reply.answer(), reply)


def _receive(event: ProviderEvent | ModelError, reply: Reply, runner: ToolRunner) -> Event | None:
    """One provider event into the reply; the engine event it makes, if any."""
    match event:
        case TextChunk(index=index, text=text):
            reply.add_text(index, text)
            return TextDelta(text, index)
        case ThinkingChunk(index=index, text=text):
            return ThinkingDelta(text, index)
        case BlockCompleted(index=index, block=block):
            reply.complete_block(index, block)
            return runner.add(block) if is_tool_use(block) else None
        case StreamStarted(message_id=message_id, model=model, usage=usage):
            reply.message_id, reply.model, reply.usage = message_id, model, usage
        case MessageCompleted(stop_reason=stop_reason, usage=usage):
            reply.stop_reason, reply.usage, reply.complete = stop_reason, usage, True
        case Retrying(attempt=a, max_retries=m, delay_s=d, error=e, status=s):
            return ApiRetry(a, m, d, e, s)
        case ModelError() as error:
            reply.failure = error
    return None


async def _end_while_streaming(
    run: _Run, reply: Reply, runner: ToolRunner
) -> AsyncGenerator[Event, None]:
    """The response stopped unfinished (interrupted, or a model error): keep what is
    complete, give every call a result, and end the run."""
    failure, abort = reply.failure, run.params.abort
    partial = reply.partial_answer()
    if partial is not None:
        yield run.add_assistant(partial, reply)
    async for event in runner.stop(INTERRUPTED_MESSAGE if failure is None else MODEL_ERROR_RESULT):
        yield event
    if failure is None:
        yield run.add_results(runner, interrupted=True)
        yield run.end(EndReason.ABORTED_STREAMING, run.turn, abort.reason)
        return
    if runner.calls:
        yield run.add_results(runner, interrupted=False)
    yield run.end(EndReason.MODEL_ERROR, run.turn, failure.message)


async def _without_tool_use(run: _Run) -> AsyncGenerator[Event, None]:
    """Step 2: the answer holds no tool_use, so the run is done; a Stop hook may end
    it its own way or send the model on with a message."""
    hooks, abort = run.params.hooks, run.params.abort
    if hooks is None or abort.aborted:
        yield run.end(EndReason.COMPLETED, run.turn)
        return
    last = run.params.messages[-1] if run.params.messages else {"content": ""}
    stop = await _unless_aborted(run.stop_guard.check(hooks, text_of(last)), abort)
    if stop is None:  # Esc while the Stop hook ran: the answer stands
        yield run.end(EndReason.COMPLETED, run.turn, abort.reason)
        return
    for text in stop.notices:
        yield Notice(text, "warning")
    if stop.end is not None:
        yield run.end(EndReason(stop.end), run.turn, stop.message)
    elif stop.feedback is not None:  # exit 2: the model goes on with the message
        yield run.add_user(user_message(stop.feedback))
        run.turn += 1
    else:
        yield run.end(EndReason.COMPLETED, run.turn)


async def _run_tools(runner: ToolRunner) -> AsyncGenerator[Event, None]:
    """Step 3: every call of the answer runs (or is refused); orchestration.py says how."""
    async with aclosing(runner.run()) as events:
        async for event in events:
            yield event


async def _append_results_and_go_on(run: _Run, runner: ToolRunner) -> AsyncGenerator[Event, None]:
    """Step 4: the results join the conversation; the next turn begins, unless the
    person interrupted the tools or a tool hook said `continue: false`."""
    abort, hooks = run.params.abort, run.params.hooks
    interrupted = abort.aborted
    yield run.add_results(runner, interrupted=interrupted)
    if interrupted:
        yield run.end(EndReason.ABORTED_TOOLS, run.turn, abort.reason)
        return
    hook_stop = hooks.take_stop() if hooks is not None else None
    if hook_stop is not None:
        yield run.end(EndReason.HOOK_STOPPED, run.turn, hook_stop)
        return
    run.turn += 1


def _build_request(params: QueryParams) -> ModelRequest:
    messages = normalize_for_api(params.messages)
    if params.shape_request is not None:
        messages = params.shape_request(messages)
    return ModelRequest(
        model=params.model,
        messages=messages,
        system=params.system,
        tools=params.tools.schemas(),
        max_tokens=params.max_tokens,
        extra=params.request_extra,
        reasoning=params.reasoning,
    )


def _marker() -> TextBlock:
    return {"type": "text", "text": INTERRUPT_MARKER}


async def _unless_aborted(work: Awaitable[T], abort: AbortSignal) -> T | None:
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
