"""One ACP session: an engine, and the prompt turns the client runs on it.

A turn is driven as every front end drives one (frontends/driver), the
session being the front end: each event becomes `session/update`s
(updates.py, `show`) and a permission question becomes a
`session/request_permission` to the client (permission.py, `answer`), asked
while the events go on. The question ends when the engine ends it: answered,
or withdrawn when the turn stops (`session/cancel`), which also drops the
request to the client. A question that could not be put to the client at all
(the link failed) stops the turn, and the prompt fails with the reason. The
turn's end is the prompt's stop reason.
"""

from __future__ import annotations

import logging

from agentcli.core.abort import AbortSignal
from agentcli.core.messages import Block
from agentcli.engine.events import EndReason, Event, Notice
from agentcli.engine.query_engine import QueryEngine
from agentcli.frontends.acp.link import ClientLink
from agentcli.frontends.acp.permission import answer_of, permission_params
from agentcli.frontends.acp.person_questions import ask_editor
from agentcli.frontends.acp.rpc import INTERNAL_ERROR, INVALID_REQUEST, RpcError
from agentcli.frontends.acp.updates import UpdateMapper, text_chunk
from agentcli.frontends.driver import drive
from agentcli.frontends.driver.person import person_questions
from agentcli.frontends.output_streams import say
from agentcli.permissions.question import PermissionQuestion
from agentcli.permissions.question_models import PermissionAnswer
from agentcli.permissions.types import PermissionMode

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

    async def prompt(self, prompt: str | list[Block]) -> str:
        """Run one turn to its end (frontends/driver); its ACP stop reason."""
        if self._abort is not None:
            raise RpcError(INVALID_REQUEST, "a prompt is already running in this session")
        self._abort = abort = AbortSignal()
        try:
            await self._servers_ready(abort)
            tally = await drive(self.engine, prompt, self, abort=abort)
        finally:
            self._abort = None
        if tally.unanswered:  # the editor could not be asked: the turn stopped
            raise RpcError(INTERNAL_ERROR, tally.unanswered[0])
        if tally.stopped is not None:
            return "cancelled"  # whatever the engine was doing when told to stop
        if tally.reason is None or tally.reason is EndReason.MODEL_ERROR:
            error = tally.error if tally.reason else "the turn ended without a reason"
            raise RpcError(INTERNAL_ERROR, f"model error: {error}")
        return STOP_REASONS.get(tally.reason, "end_turn")

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

    async def answer(self, question: PermissionQuestion) -> PermissionAnswer:
        """The person's answer, asked through the editor (`session/request_permission`;
        the model's questions to the person, one request a question: person_questions.py)."""
        asked = person_questions(question.request)
        try:
            if asked is not None:
                return await ask_editor(self.link, question.request, asked)
            params = permission_params(self.link.session_id, question.request)
            return answer_of(await self.link.request("session/request_permission", params))
        except RpcError as error:
            return PermissionAnswer(
                allow=False, feedback=f"The editor could not ask the user: {error.message}"
            )
        except ValueError:  # an answer that is not one (pydantic's ValidationError)
            return PermissionAnswer(allow=False, feedback="The editor's answer was unreadable.")

    async def show(self, event: Event) -> None:
        """One event as the client's `session/update`s."""
        if isinstance(event, Notice) and event.level == "info":
            say(f"agentcli: {event.text}")  # never stdout: the protocol's
        for update in self.mapper.updates(event):
            await self.link.update(update)
        await self._mode_changed()

    async def _mode_changed(self) -> None:
        """Tell the client when the mode changed on our side (a plan approved)."""
        mode = self.engine.gate.policy.mode
        if mode != self._mode:
            self._mode = mode
            await self.link.update({"sessionUpdate": "current_mode_update", "currentModeId": mode})
