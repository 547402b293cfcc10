"""The driver: one process, one conversation, a turn for each user message on stdin.

stdin is read all along (a control request such as `interrupt` must arrive
while a turn runs). A user message that comes while no turn runs starts one;
those that come while a turn runs wait, and the next turn takes them all in
at once, as Claude Code folds queued prompts: text joined by newlines, or,
when one has content blocks, every message's blocks in order (`folded`).
The engine is built when `initialize` comes (its hooks become callback
hooks) or, for a client that sends none, at the first other line. Every
turn writes `system/init`, the turn's messages, and one `result`.

When stdin ends, the turns already sent still run, then the session ends
cleanly (SessionEnd hooks, the transcript closed, MCP servers stopped).
The exit status is Claude Code's: 0 when the last turn succeeded, 1 when
its result was an error (the SDK then raises `ResultError` with it) or the
session could not be set up (the reason is on stderr). A client that closes
stdout ends the session at once: the turn is interrupted, nothing more is
written, and the status is 141 (frontends/output_streams.py).
"""

from __future__ import annotations

import asyncio
import time
import uuid
from argparse import Namespace
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from agentcli.agents.definitions import AgentDefinition
from agentcli.agents.sub_engine import catalog_of
from agentcli.commands.headless_prompt import run_builtin, sdk_command
from agentcli.core.messages import Block
from agentcli.engine.events import AssistantMessage, Event
from agentcli.engine.query_engine import QueryEngine
from agentcli.frontends.driver import drive
from agentcli.frontends.headless.output import Ending, Output, RunSummary, over_budget, report
from agentcli.frontends.output_streams import EXIT_STDOUT_GONE, Stdout
from agentcli.frontends.sdk.agents import AgentConfigError, sdk_agents
from agentcli.frontends.sdk.channel import ControlChannel
from agentcli.frontends.sdk.control import ControlProblem, Controls
from agentcli.frontends.sdk.hooks import HookConfigError, callback_hooks
from agentcli.frontends.sdk.mcp_bridge import sdk_messages
from agentcli.frontends.sdk.permissions import DONT_ASK, ask_client, refusal
from agentcli.frontends.sdk.wire import Sender, StdinLines
from agentcli.hooks.callbacks import CallbackHook
from agentcli.mcp.status import sdk_status
from agentcli.permissions.question import PermissionQuestion
from agentcli.permissions.question_models import PermissionAnswer
from agentcli.wiring.bootstrap import Options, build_engine, engine_startup_notices, make_provider
from agentcli.wiring.composition import finish_session

EXIT_OK, EXIT_ERROR = 0, 1
# A user message's content as the program sent it (taken as is: the API judges it).
Prompt = str | list[Block]


class SetupFailed(Exception):
    """The session cannot start (no session to resume, no API key...)."""


@dataclass(frozen=True, slots=True)
class Queued:
    """A user message waiting for its turn: its content, the id agentcli knows it by
    (its transcript record's and checkpoints' uuid), and the `uuid` the client gave."""

    content: Prompt
    prompt_id: str
    given_id: str | None


class SdkSession:
    def __init__(self, args: Namespace, stdout: Stdout) -> None:
        self.args = args
        self.stdout = stdout
        self.send = Sender(stdout)
        self.channel = ControlChannel(self.send)
        self.dont_ask = args.permission_mode == DONT_ASK
        self.prompts: asyncio.Queue[Queued | None] = asyncio.Queue()
        self.engine: QueryEngine | None = None
        self.failed = False
        self.last_failed = False  # the last turn's result was an error
        self.aliases: dict[str, str] = {}  # a folded message's id -> its turn's prompt id
        self.agents: list[AgentDefinition] = []  # initialize's own subagents

    async def serve(self) -> int:
        self.stdout.on_gone(self._client_gone)
        self.stdout.watch(asyncio.get_running_loop())
        reading = asyncio.create_task(self._read(StdinLines()))
        try:
            while (batch := await self._next_batch()) and not self.stdout.gone:
                await self._turn(batch)
        finally:
            reading.cancel()
            await asyncio.gather(reading, return_exceptions=True)
            await self._close()
        failure = None if reading.cancelled() else reading.exception()
        if failure is not None:  # a bug while reading: said, not hidden behind exit 0
            raise failure
        if self.stdout.gone:
            return EXIT_STDOUT_GONE
        return EXIT_ERROR if self.failed or self.last_failed else EXIT_OK

    async def _next_batch(self) -> list[Queued]:
        """The next turn's messages: the first to come, and every one queued behind it
        (those sent while the last turn ran). Empty once stdin has ended."""
        first = await self.prompts.get()
        if first is None:
            return []
        batch = [first]
        while not self.prompts.empty():
            queued = self.prompts.get_nowait()
            if queued is None:
                self.prompts.put_nowait(None)  # the end still comes after this turn
                break
            batch.append(queued)
        return batch

    def _client_gone(self) -> None:
        """stdout was closed: stop the turn; no more turns."""
        if self.engine is not None:
            self.engine.interrupt("the SDK client closed stdout")
        self.prompts.put_nowait(None)

    # -- stdin -------------------------------------------------------------------

    async def _read(self, lines: StdinLines) -> None:
        """Dispatch each line of stdin; at its end (or a failure here) no more turns come.

        The client's requests and user messages are handled in order by one worker
        (`_work`), apart from this reading: building the session waits on answers to
        our own requests (the program's SDK MCP servers answer `mcp_message`), which
        must still be read meanwhile."""
        inbox: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue()
        worker = asyncio.create_task(self._work(inbox))
        try:
            await self._dispatch(lines, inbox)
            self.channel.close()  # no answer can come now: what waits on one fails
            inbox.put_nowait(None)
            await worker
        finally:
            worker.cancel()
            await asyncio.gather(worker, return_exceptions=True)
            self.channel.close()
            self.prompts.put_nowait(None)

    async def _dispatch(
        self, lines: StdinLines, inbox: asyncio.Queue[dict[str, Any] | None]
    ) -> None:
        while not self.failed and (incoming := await lines.next()) is not None:
            if incoming.message is None:
                report(f"{incoming.problem}; ignored")
                continue
            message = incoming.message
            match incoming.kind:
                case "control_request" | "user":
                    inbox.put_nowait(message)
                case "control_response":
                    response = message.get("response")
                    problem = self.channel.resolve(response if isinstance(response, dict) else {})
                    if problem:
                        report(f"{problem}; ignored")
                case "control_cancel_request" | "keep_alive":
                    pass  # none of the client's requests runs long enough to cancel
                case kind:
                    report(f"a line of stdin has the unknown type {kind!r}; ignored")

    async def _work(self, inbox: asyncio.Queue[dict[str, Any] | None]) -> None:
        """The client's requests and user messages, one at a time, in the order sent."""
        while (message := await inbox.get()) is not None:
            if message.get("type") == "user":
                await self._user(message)
            else:
                await self._control(message)

    async def _control(self, message: dict[str, Any]) -> None:
        request_id, request = message.get("request_id"), message.get("request")
        if not isinstance(request_id, str) or not isinstance(request, dict):
            report("a control_request without a request_id and a request; ignored")
            return
        try:
            if request.get("subtype") == "initialize" and self.engine is None:
                payload = await self._initialize(request)
            elif await self._ready():
                payload = self.controls.handle(request)
            else:
                raise ControlProblem("the session could not start (see stderr)")
        except (ControlProblem, HookConfigError) as exc:
            self.send(_response(request_id, "error", error=str(exc)))
            return
        self.send(_response(request_id, "success", response=payload))

    async def _user(self, message: dict[str, Any]) -> None:
        body = message.get("message")
        content = body.get("content") if isinstance(body, dict) else None
        if not (isinstance(content, str) and content.strip()) and not (
            isinstance(content, list) and content
        ):
            report("a user message without content; ignored")
            return
        if await self._ready():
            given = message.get("uuid")
            prompt_id = given if isinstance(given, str) and given else str(uuid.uuid4())
            if self.args.replay_user_messages and isinstance(body, dict):
                self.output.user_replay(body, prompt_id)
            client_id = given if isinstance(given, str) and given else None
            self.prompts.put_nowait(Queued(content, prompt_id, client_id))

    # -- set-up ------------------------------------------------------------------

    async def _initialize(self, request: dict[str, Any]) -> dict[str, Any]:
        hooks, notes = callback_hooks(request.get("hooks"), self.channel)
        try:
            self.agents, agent_notes = sdk_agents(request.get("agents"))
        except AgentConfigError as exc:
            raise ControlProblem(str(exc)) from None
        for note in [*notes, *agent_notes]:
            report(f"note: {note}")
        if not await self._ready(hooks):
            raise ControlProblem("the session could not start (see stderr)")
        assert self.engine is not None
        catalog = catalog_of(self.engine)
        return {
            "commands": [
                {"name": c.name, "description": c.description, "argumentHint": c.argument_hint}
                for c in slash_commands(self.engine)
            ],
            "agents": [
                {"name": agent.name, "description": agent.description, "model": agent.model}
                for agent in (catalog.agents if catalog is not None else ())
            ],
            "models": [
                {"value": self.controls.default_model, "displayName": self.controls.default_model}
            ],
            "output_style": "default",
            "available_output_styles": ["default"],
            "hook_on_failure_supported": True,  # callbacks.py: onFailure "block" blocks
            "hooks_applied": True,
        }

    async def _ready(self, hooks: list[CallbackHook] | None = None) -> bool:
        """Build the engine once (with `initialize`'s hooks when it came first)."""
        if self.engine is None and not self.failed:
            try:
                await self._build(hooks or [])
            except SetupFailed as exc:
                report(f"error: {exc}")
                self.failed = True
        return self.engine is not None

    async def _build(self, hooks: list[CallbackHook]) -> None:
        from agentcli.mcp.manager import load_sdk
        from agentcli.providers.base import ModelError
        from agentcli.providers.tuning import ApiTuning
        from agentcli.session.resume import SessionNotFound, resolve_resumed

        args = self.args
        mode = None if self.dont_ask else args.permission_mode
        options = replace(
            Options.from_args(args, Path.cwd()),
            trusted=True,
            permission_mode=mode,
            # AskUserQuestion goes to the program's can_use_tool, as in Claude Code;
            # without one there is nobody to answer it, so it is not offered.
            person_answers=args.permission_prompt_tool == "stdio",
        )
        if options.resume == "":
            raise SetupFailed("--resume needs a session ID here (or use --continue)")
        try:
            resumed = resolve_resumed(
                options.cwd,
                continue_latest=options.continue_session,
                resume_id=options.resume,
                fork=args.fork_session,
            )
        except SessionNotFound as exc:
            raise SetupFailed(str(exc)) from None
        for notice in resumed.notices if resumed else []:
            report(notice)
        engine = build_engine(
            options,
            None,
            resumed,
            hook_callbacks=hooks,
            sdk_messages=sdk_messages(self.channel),
            agents=self.agents,
        )
        for startup in engine_startup_notices(engine):
            report(f"warning: {startup.text}")
        tuning = ApiTuning.from_env()
        for malformed in tuning.problems:
            report(f"warning: {malformed}")
        try:
            engine.connect(
                await asyncio.to_thread(make_provider, tuning, engine.settings, engine.config.model)
            )
        except ModelError as exc:
            raise SetupFailed(exc.message) from None
        if engine.mcp is not None and engine.mcp.configured:
            await asyncio.to_thread(load_sdk)
            await engine.mcp.start()
            await engine.mcp.wait_ready()
        for notice in await engine.start_session("resume" if resumed else "startup"):
            report(f"hook: {notice}")
        self.engine = engine
        self.output = Output(
            "stream-json", engine.session_id, self.stdout, partial=args.include_partial_messages
        )
        self.controls = Controls(engine, engine.config.model, self._set_dont_ask, self.aliases)

    def _set_dont_ask(self, on: bool) -> None:
        self.dont_ask = on

    # -- turns -------------------------------------------------------------------

    async def _turn(self, batch: list[Queued]) -> None:
        engine = self.engine
        assert engine is not None
        started = time.monotonic()
        prompt_id = batch[0].prompt_id
        for later in batch[1:]:  # rewind_files to any of them goes back to the turn's start
            self.aliases[later.prompt_id] = prompt_id
        self._init_line(engine)
        budget: float | None = self.args.max_budget_usd
        builtin = sdk_command(batch[0].content) if len(batch) == 1 else None
        if self.is_over_budget(engine):
            summary = RunSummary(session_id=engine.session_id, ending=over_budget(budget or 0.0))
            summary.total_cost_usd = engine.cost_usd
        elif builtin is not None:  # "/compact": run, as Claude Code runs it; not sent as text
            said, failed = await run_builtin(engine, builtin, self.output.event)
            cost = engine.cost_usd
            summary = RunSummary.of_command(engine.session_id, said, failed, engine.usage, cost)
        else:
            front = _SdkTurn(self, engine)
            prompt = folded([queued.content for queued in batch])
            tally = await drive(engine, prompt, front, prompt_id=prompt_id)
            summary = RunSummary.of_turn(engine.session_id, tally)
            summary.ending = front.ending
        given = [queued.given_id for queued in batch if queued.given_id]
        summary.user_message_uuids = given or None
        summary.duration_ms = int((time.monotonic() - started) * 1000)
        self.last_failed = summary.is_error
        self.output.finish(summary)

    def _init_line(self, engine: QueryEngine) -> None:
        mcp = engine.mcp
        self.output.init(
            engine.config.model,
            engine.visible_tools().names(),
            str(engine.workspace.root),
            DONT_ASK if self.dont_ask else engine.gate.policy.mode.value,
            mcp_servers=[(s.name, sdk_status(s.state)) for s in mcp.status()] if mcp else [],
            slash_commands=[c.name for c in slash_commands(engine)],
            agents=catalog.names() if (catalog := catalog_of(engine)) else [],
            plugins=[(plugin.name, str(plugin.root)) for plugin in engine.places.plugins],
        )

    def is_over_budget(self, engine: QueryEngine) -> bool:
        budget: float | None = self.args.max_budget_usd
        cost = engine.cost_usd  # None: a model without prices, whose cost cannot be held
        return budget is not None and cost is not None and cost >= budget

    async def _close(self) -> None:
        engine = self.engine
        if engine is None:
            return
        from agentcli.providers.base import close_provider

        for notice in await engine.end_session("other"):
            report(f"hook: {notice}")
        if engine.provider is not None:
            await close_provider(engine.provider)
        problem = finish_session(engine)
        if problem:
            report(f"warning: {problem}")
        if engine.mcp is not None:
            await engine.mcp.close()


class _SdkTurn:
    """One turn of the SDK session as the driver's front end: each event as stream-json
    lines; a question put to the program (`can_use_tool`), or refused at once when
    nobody may be asked; the turn stopped once the session is over its budget."""

    def __init__(self, session: SdkSession, engine: QueryEngine) -> None:
        self.session = session
        self.engine = engine
        self.ending: Ending | None = None  # over --max-budget-usd

    async def show(self, event: Event) -> None:
        session = self.session
        session.output.event(event)
        if isinstance(event, AssistantMessage) and session.is_over_budget(self.engine):
            self.ending = over_budget(session.args.max_budget_usd or 0.0)
            self.engine.interrupt("over --max-budget-usd")

    async def answer(self, question: PermissionQuestion) -> PermissionAnswer:
        session = self.session
        if session.dont_ask or session.args.permission_prompt_tool != "stdio":
            return refusal(question.request, session.dont_ask)
        answer, notes = await ask_client(session.channel, question, self.engine.gate)
        for note in notes:
            report(note)
        return answer


def folded(contents: list[Prompt]) -> Prompt:
    """Several user messages as one turn's prompt, as Claude Code joins queued prompts:
    text by newlines; when any has content blocks, every one's blocks in order."""
    if len(contents) == 1:
        return contents[0]
    if all(isinstance(content, str) for content in contents):
        return "\n".join(str(content) for content in contents)
    blocks: list[Block] = []
    for content in contents:
        blocks += [{"type": "text", "text": content}] if isinstance(content, str) else content
    return blocks


def _response(request_id: str, subtype: str, **fields: Any) -> dict[str, Any]:
    return {
        "type": "control_response",
        "response": {"subtype": subtype, "request_id": request_id, **fields},
    }


def slash_commands(engine: QueryEngine) -> list[Any]:
    """The built-in commands, then the session's command files (the project's, the
    person's and the plugins', as its setting sources and plugins say)."""
    import agentcli.commands.builtin  # noqa: F401  (registers the built-in commands)
    from agentcli.commands.command_files import load_command_files
    from agentcli.commands.registry import REGISTRY

    builtin = REGISTRY.all()
    found = load_command_files(
        engine.workspace.root, taken=lambda name: name in REGISTRY, places=engine.places
    )
    files = [_Listed(f.name, f.shown_description, f.argument_hint) for f in found.commands]
    return [*builtin, *files]


@dataclass(frozen=True, slots=True)
class _Listed:
    """A command file as `initialize` and init list it."""

    name: str
    description: str
    argument_hint: str


def main(args: Namespace) -> int:
    """`agentcli --input-format stream-json --output-format stream-json ...`."""
    from agentcli.frontends.sdk import flags

    with flags.prepared(args) as problem:
        if problem:
            report(f"error: {problem}")
            return EXIT_ERROR
        for note in flags.notes(args):
            report(f"note: {note}")
        try:
            return asyncio.run(SdkSession(args, Stdout()).serve())
        except KeyboardInterrupt:
            report("interrupted")
            return 130
