"""An ACP client for the tests, on the protocol's own library (`agent-client-protocol`).

`EditorClient` plays an editor: it records every update, answers permission
questions from a script, keeps unsaved buffers (what `fs/read_text_file`
returns before the disk), saves what `fs/write_text_file` sends, and runs
terminals as local processes. `running_agent()` starts the real
`agentcli --acp` as a subprocess, talking to the fake Messages API;
`agent_in_process()` serves the same agent in the test's process (no start-up
to pay: most of an ACP test's CPU time was the agent process importing the SDK).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
import sys
import threading
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from acp import (
    PROTOCOL_VERSION,
    CreateTerminalResponse,
    KillTerminalResponse,
    ReadTextFileResponse,
    ReleaseTerminalResponse,
    RequestPermissionResponse,
    TerminalOutputResponse,
    WaitForTerminalExitResponse,
    WriteTextFileResponse,
    spawn_agent_process,
)
from acp.client.connection import ClientSideConnection
from acp.schema import (
    AllowedOutcome,
    ClientCapabilities,
    DeniedOutcome,
    FileSystemCapabilities,
    TerminalExitStatus,
)

WAIT = "wait"  # a scripted answer: never answer (until cancelled)


class EditorClient:
    def __init__(
        self, answers: list[str] | None = None, *, fs: bool = False, terminal: bool = False
    ):
        self.answers = list(answers or [])
        self.fs = fs
        self.terminal = terminal
        self.updates: list[Any] = []
        self.questions: list[Any] = []
        self.buffers: dict[str, str] = {}
        self.reads: list[str] = []
        self.writes: list[tuple[str, str]] = []
        self.terminals: dict[str, asyncio.subprocess.Process] = {}
        self.outputs: dict[str, bytearray] = {}
        self.collectors: dict[str, asyncio.Future[None]] = {}
        self._changed = asyncio.Condition()

    def capabilities(self) -> ClientCapabilities:
        return ClientCapabilities(
            fs=FileSystemCapabilities(read_text_file=self.fs, write_text_file=self.fs),
            terminal=self.terminal,
        )

    async def wait_for(self, found: Callable[[], Any], timeout: float = 30) -> Any:
        """Until `found()` is true (updates and questions wake it)."""
        async with self._changed:
            await asyncio.wait_for(self._changed.wait_for(found), timeout)
        return found()

    def of_kind(self, kind: str) -> list[Any]:
        return [u for u in self.updates if u.session_update == kind]

    async def _changed_now(self) -> None:
        async with self._changed:
            self._changed.notify_all()

    # -- the Client protocol ---------------------------------------------------------

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        self.updates.append(update)
        await self._changed_now()

    async def request_permission(
        self, options: list[Any], session_id: str, tool_call: Any, **kwargs: Any
    ) -> RequestPermissionResponse:
        self.questions.append((tool_call, options))
        await self._changed_now()
        answer = self.answers.pop(0)
        if answer == WAIT:
            await asyncio.Event().wait()  # until the agent gives up the request
        if answer == "cancelled":
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        return RequestPermissionResponse(
            outcome=AllowedOutcome(outcome="selected", option_id=answer)
        )

    async def read_text_file(
        self,
        path: str,
        session_id: str,
        limit: int | None = None,
        line: int | None = None,
        **kwargs: Any,
    ) -> ReadTextFileResponse:
        self.reads.append(path)
        text = self.buffers.get(path)
        return ReadTextFileResponse(content=text if text is not None else Path(path).read_text())

    async def write_text_file(
        self, content: str, path: str, session_id: str, **kwargs: Any
    ) -> WriteTextFileResponse:
        self.writes.append((path, content))
        self.buffers.pop(path, None)
        Path(path).write_text(content)  # the editor saves the buffer
        return WriteTextFileResponse()

    async def create_terminal(
        self,
        command: str,
        session_id: str,
        args: list[str] | None = None,
        cwd: str | None = None,
        env: list[Any] | None = None,
        output_byte_limit: int | None = None,
        **kwargs: Any,
    ) -> CreateTerminalResponse:
        extra = {variable.name: variable.value for variable in env or []}
        process = await asyncio.create_subprocess_exec(
            command,
            *(args or []),
            cwd=cwd,
            env={**os.environ, **extra},
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
            start_new_session=True,  # killed as a group, as a terminal's processes are
        )
        terminal_id = f"term-{len(self.terminals) + 1}"
        self.terminals[terminal_id] = process
        self.outputs[terminal_id] = bytearray()
        self.collectors[terminal_id] = asyncio.ensure_future(self._collect(terminal_id, process))
        return CreateTerminalResponse(terminal_id=terminal_id)

    async def _collect(self, terminal_id: str, process: asyncio.subprocess.Process) -> None:
        assert process.stdout is not None
        while chunk := await process.stdout.read(4096):
            self.outputs[terminal_id] += chunk

    async def wait_for_terminal_exit(
        self, session_id: str, terminal_id: str, **kwargs: Any
    ) -> WaitForTerminalExitResponse:
        code = await self.terminals[terminal_id].wait()
        return WaitForTerminalExitResponse(exit_code=code)

    async def terminal_output(
        self, session_id: str, terminal_id: str, **kwargs: Any
    ) -> TerminalOutputResponse:
        process = self.terminals[terminal_id]
        if process.returncode is not None:
            await self.collectors[terminal_id]  # all of the output of a finished command
        status = (
            TerminalExitStatus(exit_code=process.returncode)
            if process.returncode is not None
            else None
        )
        return TerminalOutputResponse(
            output=self.outputs[terminal_id].decode(), truncated=False, exit_status=status
        )

    async def kill_terminal(
        self, session_id: str, terminal_id: str, **kwargs: Any
    ) -> KillTerminalResponse:
        await self._kill(terminal_id)
        return KillTerminalResponse()

    async def release_terminal(
        self, session_id: str, terminal_id: str, **kwargs: Any
    ) -> ReleaseTerminalResponse:
        await self._kill(terminal_id)
        return ReleaseTerminalResponse()

    async def _kill(self, terminal_id: str) -> None:
        process = self.terminals[terminal_id]
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        await process.wait()
        await self.collectors[terminal_id]

    async def close(self) -> None:
        """Every terminal's process ended and reaped (the agent may be gone first)."""
        for terminal_id in self.terminals:
            await self._kill(terminal_id)

    def on_connect(self, conn: Any) -> None:
        pass


@asynccontextmanager
async def running_agent(
    client: EditorClient, cwd: Path, server: Any, *args: str
) -> AsyncIterator[ClientSideConnection]:
    """`agentcli --acp` in `cwd`, initialized, talking to `server` (the fake API)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
    env.update(
        ANTHROPIC_API_KEY="test-key",
        ANTHROPIC_BASE_URL=server.base_url,
        AGENTCLI_RETRY_BASE_DELAY_MS="0",
    )
    log = cwd.parent / "agent-stderr.log"
    with open(log, "ab") as stderr:
        async with spawn_agent_process(
            client,
            sys.executable,
            "-m",
            "agentcli",
            "--acp",
            *args,
            env=env,
            cwd=cwd,
            # The library waits `shutdown_timeout` for the agent to exit after stdin
            # closes, then terminates it; on a loaded machine agentcli can take longer
            # than its 2 s default and exit just as terminate() is called
            # (ProcessLookupError). The wait ends as soon as the agent exits.
            transport_kwargs={"stderr": stderr.fileno(), "shutdown_timeout": 30.0},
        ) as (conn, _process):
            try:
                await conn.initialize(
                    protocol_version=PROTOCOL_VERSION, client_capabilities=client.capabilities()
                )
                yield conn
            finally:
                await client.close()


@asynccontextmanager
async def agent_in_process(
    client: EditorClient, cwd: Path, server: Any, *args: str
) -> AsyncIterator[ClientSideConnection]:
    """`agentcli --acp ARGS` served in this process, over a socket pair instead of stdio.

    The same code as the binary from its parsed command line on (`_serve`: the
    connection, the front that answers `initialize` and makes the agent, its close at
    the client's end of input), with the environment and working folder the binary
    would have; what it leaves out is the process: the interpreter's start, `import
    anthropic` (some 3 s of CPU) and stdio. The tests whose subject is the process
    (its stdin, its exit, its start-up) use `running_agent`, as do a few end-to-end
    tests of the protocol through the binary."""
    from agentcli.cli.main import build_parser
    from agentcli.config.credentials import keep_credentials_private
    from agentcli.frontends.acp import main as acp_main
    from agentcli.frontends.acp import rpc

    parsed = build_parser().parse_args(["--acp", *args])
    agent_end, client_end = socket.socketpair()
    loop = asyncio.get_running_loop()
    before_env, before_cwd = dict(os.environ), os.getcwd()
    os.environ.update(
        ANTHROPIC_API_KEY="test-key",
        ANTHROPIC_BASE_URL=server.base_url,
        AGENTCLI_RETRY_BASE_DELAY_MS="0",
    )
    os.chdir(cwd)
    keep_credentials_private()  # as the binary's entry point does first
    streams = await asyncio.open_connection(sock=agent_end, limit=rpc.MAX_LINE_BYTES)
    reader, writer = await asyncio.open_connection(sock=client_end, limit=rpc.MAX_LINE_BYTES)

    taken = asyncio.Event()

    async def these_streams() -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        taken.set()
        return streams

    loaded = threading.Thread(target=lambda: None)  # the modules are imported here already
    loaded.start()
    stdio_streams = rpc.stdio_streams
    rpc.stdio_streams = these_streams  # type: ignore[assignment]
    try:
        serving = asyncio.ensure_future(acp_main._serve(parsed, loaded))
        await asyncio.wait_for(taken.wait(), 30)
    finally:
        rpc.stdio_streams = stdio_streams  # type: ignore[assignment]
    conn = ClientSideConnection(client, writer, reader)
    try:
        try:
            await conn.initialize(
                protocol_version=PROTOCOL_VERSION, client_capabilities=client.capabilities()
            )
            yield conn
        finally:
            await client.close()
            writer.write_eof()  # the client's end of input: the agent closes its sessions
            await asyncio.wait_for(serving, 60)
            await conn.close()
            streams[1].close()
            writer.close()
    finally:
        loop.remove_signal_handler(signal.SIGTERM)
        os.chdir(before_cwd)
        os.environ.clear()
        os.environ.update(before_env)
