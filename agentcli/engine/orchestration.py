"""Running a turn's tool calls: lookup, validation, permission, concurrency.

The rule this module exists to keep: every `tool_use` gets exactly one
`tool_result` with its id, in call order, in one user message, whatever
happens (unknown tool, bad input, a tool that raises, a refusal, an
interrupt, a model error after some calls were streamed).

Scheduling: consecutive concurrency-safe calls form a batch and run
together; any other call runs alone, in order. A safe call may start while
the model is still streaming (`add()` starts it at once when everything
before it is safe and already started); results still meet at the loop's
checkpoint. One call failing never cancels its siblings.

Checkpoints: before a call that declares the files it writes
(`Tool.files_written`) runs, their content is recorded, and what the call
left in them afterwards (session/checkpoints.py), so a rewind can put them
back; a failure to record is a warning, not a refusal.

Permission questions: a call the gate says to ask about is put to the person
here, one question at a time (the gate's `ask_lock`, which a subagent's gate
shares), as a `ToolPermissionRequested`
event that the front end answers (permissions/question.py says why). The
PermissionRequest hooks hear of it first and may answer it themselves
(hooks/permission_hooks.py); only then does the Notification hook run.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncGenerator, AsyncIterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from agentcli.core.abort import AbortSignal
from agentcli.core.messages import (
    INTERRUPTED_MESSAGE,
    Message,
    ResultPart,
    ToolResultBlock,
    ToolUseBlock,
)
from agentcli.core.wellformed import has_lone_surrogate, scrub
from agentcli.engine.events import (
    Event,
    Notice,
    ToolCallFinished,
    ToolCallProgress,
    ToolCallRunning,
    ToolCallStarted,
    ToolPermissionRequested,
    ToolStatus,
)
from agentcli.engine.parts import Checkpoints
from agentcli.hooks.events import Hooks
from agentcli.hooks.permission_hooks import answer_by_hook
from agentcli.hooks.tool_hooks import after_tool, before_tool, combine_decision, interrupted
from agentcli.permissions.gate import ALLOWED, GateResult, PermissionGate
from agentcli.permissions.types import Decision
from agentcli.permissions.web_rules import RuleWebReach
from agentcli.providers.tool_input import INVALID, is_marked, kind_of
from agentcli.providers.tool_input import input_problem as invalid_input_problem
from agentcli.tools.base import Tool, ToolContext, ToolError, ToolResult, Workspace
from agentcli.tools.model_access import ModelAccess
from agentcli.tools.registry import ToolRegistry

if TYPE_CHECKING:  # pydantic: imported with the first tool call, not at start
    from pydantic import ValidationError

    from agentcli.tools.inputs import ToolInput

NOT_RUN_MESSAGE = "Not run: the turn was interrupted by the user before this call started."
EMPTY_OUTPUT = "(no output)"


@dataclass(eq=False)
class ToolCall:
    """One `tool_use` of the turn and everything known about it so far."""

    index: int
    id: str
    name: str
    raw_input: dict[str, Any]
    tool: Tool | None = None
    inp: ToolInput | None = None
    invalid: str | None = None  # why it cannot run at all (unknown tool, bad input)
    decision: Decision | None = None
    task: asyncio.Task[None] | None = None
    result: ToolResultBlock | None = None
    started: bool = field(default=False)
    safe: bool = False  # concurrency-safe; decided once, in `_prepare`


class ToolRunner:
    """The tool calls of one turn."""

    def __init__(
        self,
        registry: ToolRegistry,
        gate: PermissionGate,
        workspace: Workspace,
        abort: AbortSignal,
        *,
        start_while_streaming: bool = True,
        hooks: Hooks | None = None,
        checkpoints: Checkpoints | None = None,
        model: ModelAccess | None = None,
    ) -> None:
        self.model = model  # a small, fast model for tools that ask one (WebFetch)
        self.hooks = hooks  # PreToolUse / PostToolUse (agentcli/hooks/tool_hooks.py)
        self.checkpoints = checkpoints
        self.registry = registry
        self.gate = gate
        self.workspace = workspace
        self.abort = abort
        self.start_while_streaming = start_while_streaming
        self.calls: list[ToolCall] = []
        self._queue: asyncio.Queue[Event | None] = asyncio.Queue()
        self._stop_message = INTERRUPTED_MESSAGE

    # -- intake ---------------------------------------------------------------

    def add(self, block: ToolUseBlock) -> ToolCallStarted:
        """Register a complete tool_use block; start it now if that is safe.

        The input is the model's own JSON: anything may be in it. Whatever it
        holds, the call ends in a result (`invalid` when it cannot run), and
        what the events carry is valid Unicode.
        """
        raw = block.get("input")
        raw = {} if raw is None else raw
        shown = scrub(raw) if isinstance(raw, dict) else {}
        call = ToolCall(len(self.calls), block["id"], block["name"], shown)
        self.calls.append(call)
        self._prepare(call, raw)
        if self.start_while_streaming and self._may_start_early(call):
            self._start(call)
        summary = ""
        if call.tool is not None and call.inp is not None:
            try:
                summary = call.tool.summary(call.inp, self.workspace)
            except Exception:  # a header is not worth the turn
                summary = ""
        return ToolCallStarted(call.id, call.name, call.raw_input, summary)

    def _prepare(self, call: ToolCall, raw: Any) -> None:
        tool = self.registry.get(call.name)
        if tool is None:
            available = ", ".join(self.registry.names()) or "none"
            call.invalid = f"No such tool: {call.name}. The available tools are: {available}."
            return
        call.tool = tool
        call.invalid = input_problem(call.name, raw)
        if call.invalid is not None:
            return
        from pydantic import ValidationError

        try:
            call.inp = tool.input_model.model_validate(raw)
        except ValidationError as exc:
            call.invalid = format_validation_error(call.name, exc)
            return
        try:
            call.safe = bool(tool.is_concurrency_safe(call.inp))
        except Exception:  # when in doubt, run it alone
            call.safe = False

    def _may_start_early(self, call: ToolCall) -> bool:
        if call.tool is None or not call.safe:
            return False
        if not all(c.safe and c.started for c in self.calls[:-1]):
            return False
        try:
            call.decision = self.gate.decide(call.tool, call.inp)
        except Exception:  # decided again when it runs, where a failure becomes its result
            return False
        return call.decision.behavior == "allow"

    # -- running --------------------------------------------------------------

    def _start(self, call: ToolCall) -> None:
        call.started = True
        call.task = asyncio.create_task(self._lifecycle(call), name=f"tool:{call.name}:{call.id}")

    async def run(self) -> AsyncGenerator[Event, None]:
        """Run every call not yet finished, batch by batch, yielding their events.

        Returns early (after filling in every result) when the abort signal fires.
        """
        remove = self.abort.on_abort(lambda: self._queue.put_nowait(None))
        try:
            for batch in self._batches():
                for call in batch:
                    if not call.started:
                        self._start(call)
                async for event in self._drain(batch):
                    yield event
                if self.abort.aborted:
                    break
        finally:
            remove()
        if self.abort.aborted:
            async for event in self.stop(INTERRUPTED_MESSAGE):
                yield event

    def _batches(self) -> list[list[ToolCall]]:
        batches: list[list[ToolCall]] = []
        for call in self.calls:
            if call.safe and batches and all(c.safe for c in batches[-1]):
                batches[-1].append(call)
            else:
                batches.append([call])
        return batches

    async def _drain(self, batch: list[ToolCall]) -> AsyncIterator[Event]:
        """Yield events until every call of the batch has its result (or abort fires)."""
        while True:
            for event in self.ready_events():
                yield event
            if self.abort.aborted or all(call.result is not None for call in batch):
                return
            queued = await self._queue.get()
            if queued is None:  # the abort signal fired
                return
            yield queued

    async def stop(self, message: str) -> AsyncIterator[Event]:
        """Stop everything still pending and fill in its result (interrupt or model error)."""
        self._stop_message = message
        await self.cancel_and_wait()
        for call in self.calls:
            if call.result is None:
                not_run = NOT_RUN_MESSAGE if message == INTERRUPTED_MESSAGE else message
                self._finish(call, ToolResult(not_run, is_error=True), "interrupted")
        while not self._queue.empty():
            event = self._queue.get_nowait()
            if event is not None:
                yield event

    async def _lifecycle(self, call: ToolCall) -> None:
        """Permission, then the run; every path ends in exactly one `_finish`."""
        try:
            if call.invalid is not None:
                self._finish(call, ToolResult(call.invalid, is_error=True), "failed")
                return
            tool, inp = call.tool, call.inp
            assert tool is not None and inp is not None
            forced: str | None = None
            context: tuple[str, ...] = ()
            if self.hooks is not None:
                pre = await before_tool(self.hooks, tool, inp, call.id, self._notice)
                if pre.refusal is not None:
                    self._finish(call, ToolResult(pre.refusal, is_error=True), "denied")
                    return
                forced, context = pre.forced, pre.context
                if pre.inp is not inp:  # updatedInput: decide again on the new input
                    inp, call.decision = pre.inp, None
            decision = combine_decision(call.decision or self.gate.decide(tool, inp), forced)
            verdict = await self._permission(call, tool, inp, decision)
            if verdict.notice is not None:
                self._emit(Notice(verdict.notice, verdict.notice_level))
            if verdict.interrupt:  # Esc at the question: the whole turn stops here
                self._finish(call, ToolResult(verdict.message, is_error=True), "interrupted")
                self.abort.abort("interrupted by user")
                return
            if not verdict.allowed:
                self._finish(call, ToolResult(verdict.message, is_error=True), "denied")
                return
            if verdict.updated_input is not None:  # the answer changed the input
                from pydantic import ValidationError

                try:
                    inp = tool.input_model.model_validate(verdict.updated_input)
                except ValidationError as exc:
                    problem = format_validation_error(call.name, exc)
                    self._finish(call, ToolResult(problem, is_error=True), "failed")
                    return
                # The yes was about the input asked about: what runs instead still meets
                # the deny rules (a hook's or a program's new input, deny beats allow).
                again = self.gate.decide(tool, inp)
                if again.behavior == "deny":
                    refused = self.gate.refusal(tool, again)
                    self._finish(call, ToolResult(refused.message, is_error=True), "denied")
                    return
            if self.abort.aborted:  # the answer came after Esc: nothing starts now
                self._finish(call, ToolResult(NOT_RUN_MESSAGE, is_error=True), "interrupted")
                return
            self._emit(ToolCallRunning(call.id, call.name))
            result = await self._run_hooked(call, tool, inp, context)
            self._finish(call, result, "failed" if result.is_error else "done")
        except asyncio.CancelledError:
            self._finish(call, ToolResult(self._stop_message, is_error=True), "interrupted")
        except ToolError as exc:
            self._finish(call, ToolResult(str(exc), is_error=True), "failed")
        except Exception as exc:  # a bug in a tool must not break the conversation
            message = f"{call.name} failed: {type(exc).__name__}: {exc}"
            self._finish(call, ToolResult(message, is_error=True), "failed")

    async def _run_hooked(
        self, call: ToolCall, tool: Tool, inp: ToolInput, context: tuple[str, ...]
    ) -> ToolResult:
        """Run the call, then its PostToolUse or PostToolUseFailure hooks (a tool that
        raises is a failed call too; one interrupted fires PostToolUseFailure unawaited)."""
        tool_context = ToolContext(
            workspace=self.workspace,
            abort=self.abort,
            tool_use_id=call.id,
            report=lambda data: self._emit(ToolCallProgress(call.id, data)),
            search_filter=self.gate.policy.search_filter(tool.name),
            web_reach=RuleWebReach(self.gate.policy),
            model=self.model,
            emit=self._emit,
        )
        started = time.monotonic()
        hooks = self.hooks

        def took() -> int:
            return int((time.monotonic() - started) * 1000)

        try:
            result = await self._run_recorded(tool, inp, tool_context)
        except asyncio.CancelledError:
            if hooks is not None:
                interrupted(hooks, tool, inp, call.id, took())
            raise
        except ToolError as exc:
            result = ToolResult(str(exc), is_error=True)
        except Exception as exc:  # a bug in a tool must not break the conversation
            result = ToolResult(f"{call.name} failed: {type(exc).__name__}: {exc}", is_error=True)
        if hooks is None:
            return result
        if result.is_error and self.abort.aborted:  # stopped by Esc: nobody waits for hooks
            interrupted(hooks, tool, inp, call.id, took())
            return result
        return await after_tool(
            hooks, tool, inp, call.id, result, self._notice, duration_ms=took(), context=context
        )

    async def _run_recorded(self, tool: Tool, inp: ToolInput, context: ToolContext) -> ToolResult:
        """Run the call, its declared files recorded before and after (checkpoints)."""
        checkpoints = self.checkpoints
        paths = tool.files_written(inp, self.workspace) if checkpoints is not None else []
        if checkpoints is None or not paths:
            return await tool.run(inp, context)
        try:
            await asyncio.to_thread(checkpoints.before_write, paths)
        except OSError as exc:
            self._notice(f"cannot record a checkpoint (rewind will not restore this change): {exc}")
        try:
            return await tool.run(inp, context)
        finally:
            with contextlib.suppress(OSError):
                await asyncio.to_thread(checkpoints.after_write, paths)

    async def _permission(
        self, call: ToolCall, tool: Tool, inp: ToolInput, decision: Decision
    ) -> GateResult:
        """Allowed, refused, or put to the person and answered."""
        decision = self.gate.settle(tool, decision)
        if decision.behavior == "allow":
            return ALLOWED
        if decision.behavior == "deny":
            return self.gate.refusal(tool, decision)
        async with self.gate.ask_lock:  # one question to the person at a time
            # A call that cannot succeed fails here (ToolError), before the question.
            preview = await tool.permission_preview(inp, self.workspace)
            question = self.gate.question(tool, inp, call.id, decision.reason, preview)
            if self.hooks is not None:
                by_hook = await answer_by_hook(self.hooks, self.gate, question, self._notice)
                if by_hook is not None:  # a PermissionRequest hook answered: nobody is asked
                    return by_hook
                self.hooks.notify(f"agentcli needs your permission to use {tool.name}")
            self._emit(ToolPermissionRequested(question))
            answer = await question.reply()
            return self.gate.apply(question, answer)

    def _emit(self, event: Event) -> None:
        self._queue.put_nowait(event)

    def _notice(self, text: str) -> None:
        self._emit(Notice(text, "warning"))

    def _finish(self, call: ToolCall, result: ToolResult, status: ToolStatus) -> None:
        if call.result is not None:
            return
        call.result = tool_result_block(call.id, result)
        self._emit(
            ToolCallFinished(
                call.id, call.name, call.result, result.is_error, status, result.display
            )
        )

    def ready_events(self) -> list[Event]:
        """Events already produced by calls that started early (no waiting)."""
        ready = []
        while not self._queue.empty():
            event = self._queue.get_nowait()
            if event is not None:
                ready.append(event)
        return ready

    async def cancel_and_wait(self) -> None:
        """Cancel whatever still runs and wait for it to end (the consumer went away)."""
        running = [c.task for c in self.calls if c.task is not None and not c.task.done()]
        for task in running:
            task.cancel()
        if running:
            await asyncio.gather(*running, return_exceptions=True)

    # -- outcome --------------------------------------------------------------

    def results_message(self) -> Message:
        """The user message with every result, in call order."""
        results = [c.result for c in self.calls if c.result is not None]
        assert len(results) == len(self.calls), "a tool_use has no result yet"
        return {"role": "user", "content": [*results]}


def tool_result_block(tool_use_id: str, result: ToolResult) -> ToolResultBlock:
    # A file name that is not UTF-8, echoed in a message, is scrubbed.
    content: str | list[ResultPart] = scrub(result.content)
    if isinstance(content, list):  # the API rejects empty and whitespace-only text blocks
        content = [b for b in content if b.get("type") != "text" or str(b.get("text", "")).strip()]
    if content == "" or content == []:
        content = EMPTY_OUTPUT
    block: ToolResultBlock = {"type": "tool_result", "tool_use_id": tool_use_id, "content": content}
    if result.is_error:
        block["is_error"] = True
    return block


def input_problem(tool_name: str, raw: Any) -> str | None:
    """Why a tool input cannot even be validated, or None."""
    if not isinstance(raw, dict):
        return (
            f"Invalid input for {tool_name}: the input must be a JSON object, not {kind_of(raw)}."
        )
    if is_marked(raw):
        return invalid_input_problem(tool_name, raw[INVALID])
    if has_lone_surrogate(raw):
        return (
            f"Invalid input for {tool_name}: it is not valid Unicode (it holds half of a "
            "UTF-16 surrogate pair, such as \\ud800, without the other half). Nothing was "
            "run; send the characters themselves."
        )
    return None


def format_validation_error(tool_name: str, exc: ValidationError) -> str:
    """Say which field is wrong and why, in words the model can act on."""
    problems = []
    for error in exc.errors(include_url=False):
        where = ".".join(str(part) for part in error["loc"]) or "input"
        if error["type"] == "extra_forbidden":
            problems.append(f"{where}: unexpected field")
        else:
            problems.append(f"{where}: {error['msg']}")
    return f"Invalid input for {tool_name}: " + "; ".join(problems)
