"""The client's files and terminals, behind the seams the tools use.

When the client says it can (`fs.readTextFile` and `fs.writeTextFile`;
`terminal`), the session's Workspace gets a `ClientFiles` (Read, Edit and
Write see the editor's unsaved buffers, and their changes land in them) and
a `ClientTerminals` (Bash runs in a terminal the editor shows). The tools
and the permission gate do not change: the gate still decides every call,
and only the I/O goes through the client.

The file tools run in worker threads and call `ClientFiles` synchronously;
it hands each request to the event loop and waits for the answer.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import signal
from pathlib import Path
from typing import Any, Literal

from agentcli.core.abort import AbortSignal
from agentcli.frontends.acp.link import ClientLink
from agentcli.frontends.acp.rpc import RpcError
from agentcli.frontends.acp.schema import TerminalExitStatus, TerminalOutput
from agentcli.tools.base import ShellCommand, ShellExit, ToolError

# How long a file tool waits for the editor to answer one request.
FILE_REQUEST_TIMEOUT_S = 60.0
# The most output a terminal keeps for the result (its head is dropped past it).
TERMINAL_OUTPUT_BYTES = 1024 * 1024


class ClientFiles:
    """`EditorFiles` (tools/base.py) over `fs/read_text_file` and `fs/write_text_file`."""

    def __init__(self, link: ClientLink, loop: asyncio.AbstractEventLoop) -> None:
        self._link = link
        self._loop = loop

    def read_text(self, path: Path) -> str:
        result = self._call("fs/read_text_file", path, {}, "read")
        content = result.get("content") if isinstance(result, dict) else None
        if not isinstance(content, str):
            raise ToolError(f"The editor sent no text for {path}.")
        return content

    def write_text(self, path: Path, text: str) -> None:
        self._call("fs/write_text_file", path, {"content": text}, "write")

    def _call(self, method: str, path: Path, extra: dict[str, Any], verb: str) -> Any:
        params = {"sessionId": self._link.session_id, "path": str(path), **extra}
        future: concurrent.futures.Future[Any] = asyncio.run_coroutine_threadsafe(
            self._link.request(method, params), self._loop
        )
        try:
            return future.result(FILE_REQUEST_TIMEOUT_S)
        except RpcError as error:
            raise ToolError(f"The editor could not {verb} {path}: {error.message}")
        except TimeoutError:
            future.cancel()
            raise ToolError(f"The editor did not answer when asked to {verb} {path}.")


class ClientTerminals:
    """`Terminals` (tools/base.py) over `terminal/*`: one terminal per Bash call, shown
    in the call (`terminal` content) as soon as it starts. `shown` maps each call's
    id to its terminal, so the call's last update keeps showing it."""

    def __init__(self, link: ClientLink) -> None:
        self._link = link
        self.shown: dict[str, str] = {}
        self._releasing: set[asyncio.Task[None]] = set()

    async def run(self, command: ShellCommand, abort: AbortSignal) -> ShellExit:
        terminal_id = await self._create(command)
        try:
            self.shown[command.tool_use_id] = terminal_id
            await self._link.update(
                {
                    "sessionUpdate": "tool_call_update",
                    "toolCallId": command.tool_use_id,
                    "content": [{"type": "terminal", "terminalId": terminal_id}],
                }
            )
            outcome = await self._wait(terminal_id, command.timeout_s, abort)
            if outcome != "exited":
                await self._call("terminal/kill", terminal_id)
            output = TerminalOutput.model_validate(await self._call("terminal/output", terminal_id))
        finally:
            # Released even when the call is cancelled: the client kills what still runs.
            releasing = asyncio.ensure_future(self._release(terminal_id))
            self._releasing.add(releasing)
            releasing.add_done_callback(self._releasing.discard)
        returncode = _returncode(output.exit_status) if outcome == "exited" else None
        return ShellExit(output.output, outcome, returncode)

    async def _create(self, command: ShellCommand) -> str:
        params = {
            "sessionId": self._link.session_id,
            "command": command.argv[0],
            "args": command.argv[1:],
            "env": [{"name": name, "value": value} for name, value in command.env.items()],
            "cwd": str(command.cwd),
            "outputByteLimit": TERMINAL_OUTPUT_BYTES,
        }
        try:
            created = await self._link.request("terminal/create", params)
        except RpcError as error:
            raise ToolError(f"The editor could not start a terminal: {error.message}")
        terminal_id = created.get("terminalId") if isinstance(created, dict) else None
        if not isinstance(terminal_id, str):
            raise ToolError("The editor started no terminal (no terminalId in its answer).")
        return terminal_id

    async def _wait(
        self, terminal_id: str, timeout_s: float, abort: AbortSignal
    ) -> Literal["exited", "timed_out", "interrupted"]:
        exited = asyncio.ensure_future(self._call("terminal/wait_for_exit", terminal_id))
        aborted = asyncio.ensure_future(abort.wait())
        try:
            done, _ = await asyncio.wait(
                {exited, aborted}, timeout=timeout_s, return_when=asyncio.FIRST_COMPLETED
            )
        finally:
            for waiting in (exited, aborted):
                waiting.cancel()
        if exited in done:
            exited.result()  # the client's error, if it failed
            return "exited"
        return "interrupted" if aborted in done else "timed_out"

    async def _call(self, method: str, terminal_id: str) -> Any:
        try:
            return await self._link.request(
                method, {"sessionId": self._link.session_id, "terminalId": terminal_id}
            )
        except RpcError as error:
            raise ToolError(f"The editor's terminal failed ({method}): {error.message}")

    async def _release(self, terminal_id: str) -> None:
        try:
            await self._call("terminal/release", terminal_id)
        except (ToolError, ConnectionError):
            pass


def _returncode(status: TerminalExitStatus | None) -> int | None:
    """As a subprocess's: the exit code, or minus the number of the killing signal."""
    if status is None:
        return None
    if status.exit_code is not None:
        return status.exit_code
    if status.signal:
        try:
            return -signal.Signals[status.signal].value
        except KeyError:
            return None
    return None
