"""One ACP session: an engine, and the prompt turns the client runs on it.

A turn consumes the engine's events like every front end: each becomes
`session/update`s (updates.py) and a permission question becomes a
`session/request_permission` to the client (permission.py), asked in its own
task so the event stream never waits on it. The question ends when the
engine ends it: answered, or withdrawn when the turn stops (`session/cancel`),
which also drops the request to the client. The turn's end is the prompt's
stop reason.
"""

from __future__ import annotations

import asyncio
import logging
from contextlib import aclosing

from agentcli.core.abort import AbortSignal
from agentcli.core.messages import Block
from agentcli.engine.events import EndReason, Notice, ToolPermissionRequested, TurnEnded
from agentcli.engine.query_engine import QueryEngine
from agentcli.frontends.acp.link import ClientLink
from agentcli.frontends.acp.permission import answer_of, permission_params
from agentcli.frontends.acp.rpc import INTERNAL_ERROR, INVALID_REQUEST, RpcError
from agentcli.frontends.acp.updates import UpdateMapper, text_chunk
from agentcli.frontends.output_streams import say
from agentcli.permissions.question import PermissionQuestion
from agentcli.permissions.types import PermissionAnswer, PermissionMode

_log = logging.getLogger(__name__)

STOP_REASONS = {
    EndReason.COMPLETED: "end_turn",
    EndReason.MAX_TURNS: "max_turn_requests",
    EndReason.ABORTED_STREAMING: "cancelled",
    EndReason.ABORTED_TOOLS: "cancelled",
    EndReason.HOOK_STOPPED: "refusal",  # a UserPromptSubmit hook blocked the prompt
    EndReason.STOP_HOOK_PREVENTED: "end_turn",
}


class AcpSession:
    def __init__(self, engine: QueryEngine, link: ClientLink, mapper: UpdateMapper) -> None:
        self.engine = engine
        self.link = link
        self.mapper = mapper
        self._mode = engine.gate.policy.mode
        self._abort: AbortSignal | None = None
        self._asking: set[asyncio.Task[None]] = set()

    async def prompt(self, prompt: str | list[Block]) -> str:
        """Run one turn to its end; its ACP stop reason."""
        if self._abort is not None:
            raise RpcError(INVALID_REQUEST, "a prompt is already running in this session")
        self._abort = abort = AbortSignal()
        ended: TurnEnded | None = None
        try:
            await self._servers_ready(abort)
            async with aclosing(self.engine.submit_message(prompt, abort=abort)) as events:
                async for event in events:
                    match event:
                        case ToolPermissionRequested(question=question):
                            self._ask(question)
                        case Notice(text=text, level="info"):
                            say(f"agentcli: {text}")  # never stdout: the protocol's
                        case TurnEnded():
                            ended = event
                    for update in self.mapper.updates(event):
                        await self.link.update(update)
                    await self._mode_changed()
        finally:
            self._abort = None
        if abort.aborted:
            return "cancelled"  # whatever the engine was doing when told to stop
        if ended is None or ended.reason is EndReason.MODEL_ERROR:
            error = ended.error if ended else "the turn ended without a reason"
            raise RpcError(INTERNAL_ERROR, f"model error: {error}")
        return STOP_REASONS.get(ended.reason, "end_turn")

    async def _servers_ready(self, abort: AbortSignal) -> None:
        """Until the MCP servers are connected or failed (MCP_TIMEOUT at most), so the
        first prompt sees their tools; a cancel stops the wait."""
        mcp = self.engine.mcp
        if mcp is None or not mcp.configured:
            return
        await mcp.wait_ready_unless(abort)

    def cancel(self) -> None:
        """`session/cancel`: stop the turn (its open question is withdrawn with it)."""
        if self._abort is not None:
            self._abort.abort("cancelled by the client")

    def set_mode(self, mode: PermissionMode) -> None:
        self.engine.gate.policy.mode = mode
        self._mode = mode

    async def say(self, text: str) -> None:
        """A message from the agent outside the model's answer (a command's output)."""
        await self.link.update(text_chunk("agent_message_chunk", text))

    def _ask(self, question: PermissionQuestion) -> None:
        task = asyncio.ensure_future(self._put(question))
        self._asking.add(task)
        task.add_done_callback(self._asking.discard)
        question.on_close(task.cancel)  # withdrawn: the client's answer no longer matters

    async def _put(self, question: PermissionQuestion) -> None:
        params = permission_params(self.link.session_id, question.request)
        try:
            answer = answer_of(await self.link.request("session/request_permission", params))
        except RpcError as error:
            answer = PermissionAnswer(
                allow=False, feedback=f"The editor could not ask the user: {error.message}"
            )
        except ValueError:  # an answer that is not one (pydantic's ValidationError)
            answer = PermissionAnswer(allow=False, feedback="The editor's answer was unreadable.")
        question.answer(answer)

    async def _mode_changed(self) -> None:
        """Tell the client when the mode changed on our side (a plan approved)."""
        mode = self.engine.gate.policy.mode
        if mode != self._mode:
            self._mode = mode
            await self.link.update({"sessionUpdate": "current_mode_update", "currentModeId": mode})
