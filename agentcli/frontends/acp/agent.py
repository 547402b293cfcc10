"""The agent side of ACP: the client's requests, and the sessions they open.

After `initialize` (handshake.py), `session/new` and `session/load`
build an engine through the composition root (`bootstrap.build_engine`, as
`-p` and the TUI do), with the client's folder, extra folders and MCP
servers, and, where the client offers them, its files and terminals as the
tools' I/O; `session/load` first replays the saved conversation as updates.
`session/prompt` runs a turn (session.py); `session/cancel` stops it;
`session/set_mode` switches the permission mode.

Running agentcli in an editor trusts the project folder, as `-p` does: its
settings (hooks, env, mode, allow rules) apply without a question.
"""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import Coroutine
from dataclasses import replace
from pathlib import Path
from typing import Any

from agentcli.commands.registry import REGISTRY, Command, CommandContext, parse_command_line
from agentcli.engine.query_engine import QueryEngine
from agentcli.frontends.acp.client_io import ClientFiles, ClientTerminals
from agentcli.frontends.acp.link import ClientLink
from agentcli.frontends.acp.mcp_servers import mcp_config_file
from agentcli.frontends.acp.prompt import command_line, prompt_blocks
from agentcli.frontends.acp.rpc import INVALID_PARAMS, Connection, Handler, RpcError
from agentcli.frontends.acp.schema import (
    ClientCapabilities,
    LoadSessionParams,
    NewSessionParams,
    PromptParams,
    SessionParams,
    SetModeParams,
)
from agentcli.frontends.acp.session import AcpSession
from agentcli.frontends.acp.updates import UpdateMapper
from agentcli.permissions.types import PermissionMode
from agentcli.providers.base import ModelError, Provider, close_provider
from agentcli.session.loader import LoadedSession
from agentcli.session.resume import SessionNotFound, resolve_resumed
from agentcli.wiring.bootstrap import Options, build_engine, make_provider
from agentcli.wiring.composition import finish_session

AUTH_REQUIRED = -32000
RESOURCE_NOT_FOUND = -32002

MODES = {
    PermissionMode.DEFAULT: ("Default", "Ask before edits and commands"),
    PermissionMode.ACCEPT_EDITS: ("Accept edits", "Edit files without asking"),
    PermissionMode.PLAN: ("Plan", "Read only: explore and plan, change nothing"),
    PermissionMode.BYPASS: ("Bypass permissions", "Run everything without asking"),
}


class AcpAgent:
    """The handlers of one connection, after `initialize` (handshake.py). `options`:
    what the command line asked for (model, mode, rules...), the base of every
    session's options; `capabilities`: what the client said it can do."""

    def __init__(
        self, options: Options, client: Connection, capabilities: ClientCapabilities
    ) -> None:
        self._options = options
        self._client = client
        self._capabilities = capabilities
        self._providers: list[Provider] = []  # each session's, closed at the end
        self._sessions: dict[str, AcpSession] = {}
        self._background: set[asyncio.Task[None]] = set()

    def requests(self) -> dict[str, Handler]:
        return {
            "session/new": self.new_session,
            "session/load": self.load_session,
            "session/prompt": self.prompt,
            "session/set_mode": self.set_mode,
        }

    # -- the methods ---------------------------------------------------------------

    async def new_session(self, params: Any) -> dict[str, Any]:
        request = NewSessionParams.model_validate(params)
        link = ClientLink("", self._client.request, self._client.notify)
        engine = await self._engine(request, link, resumed=None)
        link.session_id = engine.session_id
        return await self._open(engine, link, "startup")

    async def load_session(self, params: Any) -> dict[str, Any]:
        request = LoadSessionParams.model_validate(params)
        if request.session_id in self._sessions:
            raise RpcError(INVALID_PARAMS, f"session {request.session_id} is already open")
        try:
            resumed = resolve_resumed(_folder(request.cwd), resume_id=request.session_id)
        except SessionNotFound as error:
            raise RpcError(RESOURCE_NOT_FOUND, str(error))
        if resumed is None:
            raise RpcError(RESOURCE_NOT_FOUND, f"no session {request.session_id}")
        link = ClientLink(request.session_id, self._client.request, self._client.notify)
        try:
            engine = await self._engine(request, link, resumed=resumed)
        except BaseException:
            resumed.release()  # the session was not opened after all
            raise
        mapper = self._mapper(engine, None)
        for update in mapper.replay(resumed.messages, resumed.displays):
            await link.update(update)
        return await self._open(engine, link, "resume")

    async def prompt(self, params: Any) -> dict[str, Any]:
        request = PromptParams.model_validate(params)
        session = self._session(request.session_id)
        blocks = prompt_blocks(request.prompt)
        line = command_line(blocks)
        if line is not None and await self._run_command(session, line):
            return {"stopReason": "end_turn"}
        return {"stopReason": await session.prompt(blocks)}

    async def cancel(self, params: Any) -> None:
        request = SessionParams.model_validate(params)
        session = self._sessions.get(request.session_id)
        if session is not None:
            session.cancel()

    async def set_mode(self, params: Any) -> dict[str, Any]:
        request = SetModeParams.model_validate(params)
        session = self._session(request.session_id)
        if request.mode_id not in self._mode_ids(session.engine):
            known = ", ".join(self._mode_ids(session.engine))
            raise RpcError(INVALID_PARAMS, f"unknown mode {request.mode_id!r}; modes: {known}")
        session.set_mode(PermissionMode(request.mode_id))
        return {}

    async def close(self) -> None:
        """At the end of the connection: every session's hooks and transcript closed."""
        for session in self._sessions.values():
            engine = session.engine
            await engine.end_session("other")
            finish_session(engine)
            if engine.mcp is not None:
                await engine.mcp.close()
        for provider in self._providers:
            await close_provider(provider)

    # -- sessions ------------------------------------------------------------------

    async def _engine(
        self, request: NewSessionParams, link: ClientLink, resumed: LoadedSession | None
    ) -> QueryEngine:
        cwd = _folder(request.cwd)
        base = self._options
        servers = mcp_config_file(request.mcp_servers or [])  # read by build_engine
        fs = self._capabilities.fs
        options = replace(
            base,
            cwd=cwd,
            add_dirs=[*(base.add_dirs or []), *(request.additional_directories or [])],
            mcp_config=[*(base.mcp_config or []), *([str(servers)] if servers else [])],
            trusted=True,  # an editor opened this folder: trusted, as with -p
            editor=(
                ClientFiles(link, asyncio.get_running_loop())
                if fs.read_text_file and fs.write_text_file
                else None
            ),
            terminals=ClientTerminals(link) if self._capabilities.terminal else None,
            person_answers=True,  # AskUserQuestion: a session/request_permission a question
        )
        try:
            engine = await asyncio.to_thread(build_engine, options, None, resumed)
        finally:
            if servers is not None:
                shutil.rmtree(servers.parent, ignore_errors=True)
        try:
            engine.connect(await self._provider_for(engine))
        except RpcError:
            finish_session(engine)  # nothing was said in it: its claim on the transcript goes
            raise
        if engine.mcp is not None and engine.mcp.configured:
            from agentcli.mcp.manager import load_sdk

            await asyncio.to_thread(load_sdk)
            await engine.mcp.start()
        return engine

    async def _provider_for(self, engine: QueryEngine) -> Provider:
        """A session's model provider, from its folder's settings (whose `providers` may
        send a `provider/model` elsewhere); no key for its model: AUTH_REQUIRED."""
        try:
            provider = await asyncio.to_thread(
                make_provider, None, engine.settings, engine.config.model
            )
        except ModelError as error:
            raise RpcError(AUTH_REQUIRED, error.message) from None
        self._providers.append(provider)
        return provider

    async def _open(self, engine: QueryEngine, link: ClientLink, source: str) -> dict[str, Any]:
        terminals = engine.workspace.terminals
        shown = terminals.shown if isinstance(terminals, ClientTerminals) else None
        session = AcpSession(engine, link, self._mapper(engine, shown))
        self._sessions[link.session_id] = session
        notices = await engine.start_session(source)  # SessionStart hooks
        self._after_response(self._announce(session, notices))
        mode = engine.gate.policy.mode
        return {
            "sessionId": link.session_id,
            "modes": {
                "currentModeId": mode.value,
                "availableModes": [
                    {
                        "id": m,
                        "name": MODES[PermissionMode(m)][0],
                        "description": MODES[PermissionMode(m)][1],
                    }
                    for m in self._mode_ids(engine)
                ],
            },
        }

    async def _announce(self, session: AcpSession, notices: list[str]) -> None:
        """What a new session tells the client first: its hooks' notices, its commands."""
        for notice in notices:
            await session.say(notice)
        await session.link.update(_commands_update())

    def _after_response(self, work: Coroutine[Any, Any, None]) -> None:
        """Run `work` once the response being made is sent (the client knows the session)."""

        def start() -> None:
            task = asyncio.ensure_future(work)
            self._background.add(task)
            task.add_done_callback(self._background.discard)

        asyncio.get_running_loop().call_soon(start)

    def _mapper(self, engine: QueryEngine, terminals: dict[str, str] | None) -> UpdateMapper:
        return UpdateMapper(engine.workspace, engine.visible_tools().get, terminals)

    def _session(self, session_id: str) -> AcpSession:
        session = self._sessions.get(session_id)
        if session is None:
            raise RpcError(INVALID_PARAMS, f"unknown session {session_id!r}")
        return session

    def _mode_ids(self, engine: QueryEngine) -> list[str]:
        """The modes a client may pick: bypass only when the session started in it."""
        modes = [PermissionMode.DEFAULT, PermissionMode.ACCEPT_EDITS, PermissionMode.PLAN]
        if self._options.permission_mode == PermissionMode.BYPASS.value:
            modes.append(PermissionMode.BYPASS)
        return [mode.value for mode in modes]

    async def _run_command(self, session: AcpSession, line: str) -> bool:
        """A slash command the client listed: run it here; False if it is not one."""
        parsed = parse_command_line(line)
        found = REGISTRY.get(parsed[0]) if parsed else None
        if parsed is None or found is None or found not in _commands():
            return False
        replies: list[str] = []
        context = CommandContext(
            host=None,
            engine=session.engine,
            args=parsed[1],
            registry=REGISTRY,
            output=replies.append,
            error=replies.append,
        )
        await found.handler(context)
        for reply in replies:
            await session.say(reply)
        return True


def _commands() -> list[Command]:
    """The slash commands that declare they run in an editor's session (commands/host.py):
    on the engine alone, with no app."""
    from agentcli.commands.registry import load_command_modules

    load_command_modules()
    return REGISTRY.all(frontend="acp")


def _commands_update() -> dict[str, Any]:
    return {
        "sessionUpdate": "available_commands_update",
        "availableCommands": [
            {
                "name": command.name,
                "description": command.description,
                **({"input": {"hint": command.argument_hint}} if command.argument_hint else {}),
            }
            for command in _commands()
        ],
    }


def _folder(cwd: str) -> Path:
    path = Path(cwd)
    if not path.is_absolute() or not path.is_dir():
        raise RpcError(INVALID_PARAMS, f"cwd must be an absolute path to a folder: {cwd!r}")
    return path.resolve()
