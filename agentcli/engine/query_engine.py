"""QueryEngine: one session's state, and `submit_message()` to drive the loop.

It owns the conversation (the list of API-shaped messages), the running
totals (usage, cost, turns), and the abort signal of the turn in progress.
The UI and headless mode both consume the events `submit_message()` yields.
Listeners (the transcript writer) hear of each message as soon as it is
complete; a message of tool results comes with the calls' displays (meta
`displays`), so a resumed session shows them as the live one did. A resumed session starts from its transcript's totals and last
request's usage; `start_over()` begins a new session on the same parts (`/clear`).
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import aclosing
from dataclasses import dataclass
from typing import Any

from agentcli.engine.abort import AbortSignal
from agentcli.engine.events import (
    AssistantMessage,
    EndReason,
    Event,
    Notice,
    ToolCallFinished,
    TurnEnded,
    UserMessage,
)
from agentcli.engine.loop import INTERRUPT_MARKER, QueryParams, query
from agentcli.engine.messages import answer_dangling_tool_uses, user_message
from agentcli.engine.orchestration import INTERRUPTED_MESSAGE
from agentcli.engine.pricing import cost_usd
from agentcli.engine.usage import SessionTotals, Usage
from agentcli.permissions.gate import PermissionGate
from agentcli.providers.base import Provider
from agentcli.tools.base import Workspace
from agentcli.tools.display import ToolDisplay
from agentcli.tools.registry import ToolRegistry

DEFAULT_MODEL = "claude-sonnet-5-5"

MessageListener = Callable[[dict[str, Any], dict[str, Any]], None]


@dataclass
class EngineConfig:
    model: str = DEFAULT_MODEL
    max_tokens: int = 32000
    max_turns: int | None = None
    start_tools_while_streaming: bool = True


class QueryEngine:
    def __init__(
        self,
        *,
        provider: Provider | None,
        tools: ToolRegistry,
        gate: PermissionGate,
        workspace: Workspace,
        config: EngineConfig | None = None,
        system: list[dict[str, Any]] | None = None,
        session_id: str | None = None,
        messages: list[dict[str, Any]] | None = None,
        totals: SessionTotals | None = None,
        last_request_usage: Usage | None = None,
    ) -> None:
        self.provider = provider
        self.tools = tools
        self.gate = gate
        self.workspace = workspace
        self.config = config or EngineConfig()
        self.system = system or []
        self.session_id = session_id or str(uuid.uuid4())
        self.messages: list[dict[str, Any]] = list(messages or [])
        totals = totals or SessionTotals()
        self.usage = totals.usage
        self.cost_usd = totals.cost_usd
        self.turns = totals.turns
        self.last_request_usage = last_request_usage or Usage()
        self.listeners: list[MessageListener] = []
        self._abort: AbortSignal | None = None
        self._displays: dict[str, ToolDisplay] = {}  # of calls whose results are not out yet
        # Shapes each request's copy of the messages (cache breakpoints, tool-result
        # budget); set by bootstrap (engine/caching.py `request_shaper`).
        self.prepare_messages: Callable[[list[dict[str, Any]]], list[dict[str, Any]]] | None = None
        # Runs at the loop's checkpoint before each request (auto-compaction);
        # set by `Compactor.attach()` (engine/compaction.py).
        self.before_request: Callable[[AbortSignal], AsyncIterator[Event]] | None = None
        self.compactor: Any = None
        # Settings hooks (agentcli/hooks/events.py `Hooks`); set by bootstrap.
        self.hooks: Any = None

    @property
    def busy(self) -> bool:
        return self._abort is not None

    def interrupt(self, reason: str = "interrupted by user") -> None:
        """Stop the turn in progress (model stream and tools). Harmless when idle."""
        if self._abort is not None:
            self._abort.abort(reason)

    def visible_tools(self) -> ToolRegistry:
        """The tools the model is shown: a bare deny rule hides a tool."""
        hidden = self.gate.policy.hidden_tools()
        return self.tools.without(hidden) if hidden else self.tools

    async def submit_message(
        self, prompt: str | list[dict[str, Any]], *, abort: AbortSignal | None = None
    ) -> AsyncIterator[Event]:
        """Add the person's message and run the loop until it ends; yield every event."""
        if self.provider is None:
            raise RuntimeError("no model provider is configured")
        abort = abort or AbortSignal()
        self._abort = abort
        try:
            if self.hooks is not None:
                from agentcli.hooks.session import check_prompt

                check = await check_prompt(self.hooks, prompt)
                for text in check.notices:
                    yield Notice(text, "warning")
                if check.blocked is not None:  # UserPromptSubmit: the model is not called
                    yield Notice(check.blocked, "warning")
                    yield TurnEnded(EndReason.HOOK_STOPPED, 0, error=check.blocked)
                    return
                prompt = check.prompt
            self._add(user_message(prompt))
            params = QueryParams(
                messages=self.messages,
                provider=self.provider,
                tools=self.visible_tools(),
                gate=self.gate,
                workspace=self.workspace,
                model=self.config.model,
                system=self.system,
                max_tokens=self.config.max_tokens,
                max_turns=self.config.max_turns,
                abort=abort,
                start_tools_while_streaming=self.config.start_tools_while_streaming,
                prepare_messages=self.prepare_messages,
                before_request=self.before_request,
                hooks=self.hooks,
            )
            async with aclosing(query(params)) as events:
                async for event in events:
                    self._observe(event)
                    yield event
        finally:
            self._abort = None
            self._displays.clear()
            # A consumer that stopped listening mid-turn may leave calls unanswered;
            # answer them so the next request is still one the API accepts.
            repair = answer_dangling_tool_uses(self.messages, INTERRUPTED_MESSAGE, INTERRUPT_MARKER)
            if repair is not None:
                self._notify(repair, {})

    async def compact(self, focus: str = "") -> Any:
        """`/compact [focus]`: summarise the older history now (engine/compaction.py).
        Returns a CompactionOutcome; a failure leaves the conversation as it was."""
        from agentcli.engine.compaction import CompactionOutcome, Compactor

        if self.busy:
            return CompactionOutcome(False, "a turn is running; wait for it to end")
        if self.compactor is None:
            Compactor(auto=False).attach(self)
        self._abort = abort = AbortSignal()  # Esc (interrupt()) cancels the summary call
        try:
            return await self.compactor.compact(self, focus=focus, trigger="manual", abort=abort)
        finally:
            self._abort = None

    def start_over(self) -> None:
        """Begin a new session on the same parts: a new id, no messages, totals from zero.
        The transcript is the session layer's (`session.attach.start_new_session`)."""
        if self.busy:
            raise RuntimeError("a turn is running")
        self.session_id = str(uuid.uuid4())
        self.messages = []
        self.usage, self.cost_usd, self.turns = Usage(), 0.0, 0
        self.last_request_usage = Usage()
        if self.compactor is not None:
            self.compactor.reset()
        if self.hooks is not None:
            self.hooks.session_id = self.session_id
            self.hooks.session_context.clear()

    async def start_session(self, source: str = "startup") -> list[str]:
        """SessionStart hooks (front ends call this once); returns notices for the person."""
        if self.hooks is None:
            return []
        from agentcli.hooks.session import start_session

        return await start_session(self.hooks, source)

    async def end_session(self, reason: str = "other") -> list[str]:
        """SessionEnd hooks (front ends call this on exit); returns notices for the person."""
        if self.hooks is None:
            return []
        from agentcli.hooks.session import end_session

        return await end_session(self.hooks, reason)

    def _observe(self, event: Event) -> None:
        match event:
            case AssistantMessage(message=message, usage=usage, model=model):
                self.usage = self.usage + usage
                self.last_request_usage = usage
                self.cost_usd += cost_usd(model, usage)
                self._notify(message, {"model": model, "usage": usage.to_dict()})
            case ToolCallFinished(tool_use_id=tool_use_id, display=display) if display:
                self._displays[tool_use_id] = display
            case UserMessage(message=message):
                self._notify(message, self._displays_of(message))
            case TurnEnded(turns=turns):
                self.turns += turns

    def _displays_of(self, message: dict[str, Any]) -> dict[str, Any]:
        """Meta for a message of tool results: the displays of its calls, as JSON."""
        content = message.get("content")
        blocks = content if isinstance(content, list) else []
        ids = [b.get("tool_use_id") for b in blocks if b.get("type") == "tool_result"]
        shown = {
            i: self._displays.pop(i).model_dump(mode="json") for i in ids if i in self._displays
        }
        return {"displays": shown} if shown else {}

    def _add(self, message: dict[str, Any]) -> None:
        self.messages.append(message)
        self._notify(message, {})

    def _notify(self, message: dict[str, Any], meta: dict[str, Any]) -> None:
        for listener in self.listeners:
            listener(message, meta)
