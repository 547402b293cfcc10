"""The `agentcli` tool of `agentcli mcp serve`: one whole agent turn per call.

`{prompt, cwd?, model?, session_id?}`: the prompt is run as `agentcli -p`
would run it (the same engine, built from the server's options and the
folder's settings), in `cwd` (default: the folder served), on `model`
(default: the settings'), going on with the session `session_id` when one is
given (a new session otherwise). The result is the turn's final text; its
structured content adds the session's id (to continue it), why the turn
ended and what it cost. While it runs, each tool call it starts is a
progress notification (when the client asked for progress).

Questions are refused as in `-p`: nobody can answer them here. A cancelled
call closes the turn's stream (commands killed, the transcript repaired) and
leaves the session valid to continue.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import mcp_types as types

from agentcli.engine.events import Event, ToolCallStarted
from agentcli.frontends.driver.turn import drive
from agentcli.permissions.gate import headless_answer
from agentcli.permissions.question import PermissionQuestion
from agentcli.permissions.question_models import PermissionAnswer
from agentcli.wiring.bootstrap import Options, build_engine, make_provider

Progress = Callable[[float, str], Awaitable[None]]

AGENT_TOOL = types.Tool(
    name="agentcli",
    description=(
        "Hand a task to an agentcli agent: it reads the code, edits files and runs commands "
        "(within this server's permissions) until the task is done, then answers. Pass "
        "session_id from an earlier answer to continue that conversation."
    ),
    input_schema={
        "type": "object",
        "properties": {
            "prompt": {"type": "string", "description": "The task, in plain words."},
            "cwd": {
                "type": "string",
                "description": "The folder to work in (default: the server's).",
            },
            "model": {"type": "string", "description": "The model (default: the settings')."},
            "session_id": {"type": "string", "description": "A session to continue."},
        },
        "required": ["prompt"],
        "additionalProperties": False,
    },
)


@dataclass(frozen=True)
class AgentTurns:
    """Runs agent turns on the server's options (its folder, policy and model)."""

    options: Options

    async def run(self, arguments: dict[str, Any], *, progress: Progress) -> types.CallToolResult:
        problem = _input_problem(arguments)
        if problem is not None:
            return _error(problem)
        cwd = Path(arguments.get("cwd") or self.options.cwd).expanduser()
        if not cwd.is_dir():
            return _error(f"cwd is not a folder: {cwd}")
        options = replace(
            self.options,
            cwd=cwd.resolve(),
            model=arguments.get("model") or self.options.model,
            resume=arguments.get("session_id"),
            trusted=True,
        )
        from agentcli.providers.base import ModelError, close_provider
        from agentcli.providers.tuning import ApiTuning
        from agentcli.session.resume import SessionNotFound, resolve_resumed
        from agentcli.wiring.composition import finish_session

        try:
            resumed = resolve_resumed(options.cwd, resume_id=options.resume, context_only=True)
        except SessionNotFound as error:
            return _error(str(error))
        engine = build_engine(options, provider=None, resumed=resumed)
        try:
            engine.connect(
                make_provider(ApiTuning.from_env(), engine.settings, engine.config.model)
            )
        except ModelError as error:
            finish_session(engine)
            return _error(error.message)
        try:
            tally = await drive(engine, arguments["prompt"], _Reporting(progress))
        finally:
            await close_provider(engine.provider)
            finish_session(engine)
        failed = tally.error is not None
        facts = {
            "result": tally.last_text,
            "session_id": engine.session_id,
            "end_reason": str(tally.reason) if tally.reason is not None else None,
            "num_turns": tally.turns,
            "total_cost_usd": tally.cost_usd,
            "is_error": failed,
        }
        text = tally.error if failed and tally.error else tally.last_text
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=text)],
            structured_content=facts,
            is_error=failed,
        )


class _Reporting:
    """The driver's front end here: each tool call a progress step; questions refused."""

    def __init__(self, progress: Progress) -> None:
        self._progress = progress
        self._steps = 0

    async def show(self, event: Event) -> None:
        if isinstance(event, ToolCallStarted):
            self._steps += 1
            summary = f"({event.summary})" if event.summary else ""
            await self._progress(self._steps, f"{event.name}{summary}")

    async def answer(self, question: PermissionQuestion) -> PermissionAnswer:
        return headless_answer(question.request)


def _input_problem(arguments: dict[str, Any]) -> str | None:
    known = set(AGENT_TOOL.input_schema["properties"])
    unknown = sorted(set(arguments) - known)
    if unknown:
        return f"unknown argument(s): {', '.join(unknown)} (known: {', '.join(sorted(known))})"
    if not isinstance(arguments.get("prompt"), str) or not arguments["prompt"].strip():
        return "prompt must be a non-empty string"
    for name in ("cwd", "model", "session_id"):
        if name in arguments and not isinstance(arguments[name], str):
            return f"{name} must be a string"
    return None


def _error(text: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=True)
