"""Bash: run a shell command in the project, with live output.

Every call is a fresh `bash -c` in its own process group (so a timeout or an
interrupt can stop everything it started, background jobs included), with
stdin from /dev/null (nothing can wait for a keyboard that is not there) and
stdout and stderr on one pipe (so they interleave as they happened).

Only the working directory carries over between calls. The shell reports its
final directory from an EXIT trap installed through BASH_ENV: the user's
command runs unmodified (its error messages and line numbers stay its own),
and the trap fires on `exit N` too without touching the exit status.

When the workspace has a sandbox, the same `bash -c` runs under bubblewrap
(agentcli/sandbox), or not at all: a sandbox that cannot start refuses the
call with the reason, never runs it unsandboxed.

When the workspace has terminals (an editor's, over ACP) and no sandbox, the
same `bash -c`, with the same environment and working-directory file, runs
in one of them, so the person watches it there; its output comes back whole.

Which command lines only read is the permission analysis' knowledge
(agentcli/permissions/shell/): the composition root hands the tool that
judgement (`read_only_lines`) for `is_read_only()`; a tool built without it
calls no line read-only (a false "no" costs one question).
"""

from __future__ import annotations

import asyncio
import logging
import os
import shutil
import signal
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import Field

from agentcli.config.credentials import child_env
from agentcli.config.private_files import write_private_atomic
from agentcli.sandbox import Launch, LaunchRefused, Prepared, unavailable_message
from agentcli.tools.base import (
    ShellCommand,
    Terminals,
    Tool,
    ToolContext,
    ToolError,
    ToolResult,
    Workspace,
)
from agentcli.tools.display import CommandDisplay, LiveOutput
from agentcli.tools.inputs import ArgText, ToolInput
from agentcli.tools.shell_output import MAX_OUTPUT_CHARS, OutputBuffer, ProgressThrottle
from agentcli.tools.shell_process import Outcome, Shell, shell_exit_code

if TYPE_CHECKING:
    from agentcli.tools.background.tasks import BackgroundTask

_log = logging.getLogger(__name__)

DEFAULT_TIMEOUT_MS = 120_000
MAX_TIMEOUT_MS = 600_000
# How long processes get between SIGTERM and SIGKILL.
KILL_GRACE_SECONDS = 2.0
# After the shell is gone, how long to wait for the output pipe to close.
_DRAIN_SECONDS = 1.0
# Does this command line only read? (permissions/policy.py `only_reads`)
ReadOnlyLines = Callable[[str], bool]

_RC_NAME = "bash-env.sh"
_RC_SCRIPT = """\
# Sourced through BASH_ENV by each shell of agentcli's Bash tool, before the command.
__agentcli_cwd_file=$AGENTCLI_CWD_FILE
unset AGENTCLI_CWD_FILE
if [ -n "${AGENTCLI_BASH_ENV-}" ]; then
  export BASH_ENV="$AGENTCLI_BASH_ENV"
  unset AGENTCLI_BASH_ENV
  . "$BASH_ENV"
else
  unset BASH_ENV
fi
trap 'umask 077; builtin pwd -P >| "$__agentcli_cwd_file" 2>/dev/null' EXIT
"""


class BashInput(ToolInput):
    command: ArgText = Field(min_length=1, description="The command to run with bash.")
    timeout: int | None = Field(
        None,
        ge=1,
        le=MAX_TIMEOUT_MS,
        description=(
            f"Timeout in milliseconds (default {DEFAULT_TIMEOUT_MS}, at most {MAX_TIMEOUT_MS})."
        ),
    )
    description: str | None = Field(
        None,
        description="What the command does, in a few words (e.g. 'Run unit tests'), for the person.",
    )
    run_in_background: bool | None = Field(
        None,
        description=(
            "Set to true to run this command in the background. Use TaskOutput to read "
            "the output later."
        ),
    )


class BashTool(Tool):
    name = "Bash"
    input_model = BashInput
    permission_title = "Bash command"

    def __init__(
        self,
        kill_grace: float = KILL_GRACE_SECONDS,
        max_output_chars: int = MAX_OUTPUT_CHARS,
        progress_interval: float = 0.05,
        read_only_lines: ReadOnlyLines | None = None,
    ) -> None:
        self.kill_grace = kill_grace
        self.max_output_chars = max_output_chars
        self.progress_interval = progress_interval
        self.read_only_lines = read_only_lines

    def is_read_only(self, inp: BashInput) -> bool:
        judge = self.read_only_lines
        return judge is not None and judge(inp.command)

    def is_concurrency_safe(self, inp: BashInput) -> bool:
        return False  # even a read-only command may depend on what another one changes

    def permission_subject(self, inp: BashInput) -> str | None:
        return inp.command

    def summary(self, inp: BashInput, workspace: Workspace) -> str:
        lines = inp.command.strip().splitlines() or [""]
        first = lines[0].strip()
        if len(first) > 80:
            return first[:79] + "…"
        return first + (" …" if len(lines) > 1 else "")

    async def run(self, inp: BashInput, ctx: ToolContext) -> ToolResult:
        ws = ctx.workspace
        _check_sandbox(ws)
        notes: list[str] = []
        cwd = _start_dir(ws, notes)
        scratch = ws.scratch()
        cwd_file = _new_cwd_file(scratch)
        env = _shell_env(ws, scratch, cwd_file)
        if inp.run_in_background:
            return await self._start_background(inp, ctx, cwd, env, cwd_file, notes)
        buffer = OutputBuffer(ws.scratch, self.max_output_chars, prefix="bash-output")
        if ws.terminals is not None and ws.sandbox is None:
            return await _in_terminal(ws.terminals, inp, ctx, cwd, env, cwd_file, buffer, notes)

        loop = asyncio.get_running_loop()

        def emit(text: str) -> None:
            # A failing progress consumer must not stop the command or lose its output.
            try:
                ctx.report(LiveOutput(text=text))
            except Exception:
                _log.exception("Bash progress report failed")

        throttle = ProgressThrottle(
            emit,
            loop.call_later,
            loop.time,
            self.progress_interval,
        )
        timeout_ms = inp.timeout or DEFAULT_TIMEOUT_MS
        shell, finish = await _spawn(
            ws, inp.command, cwd, env, cwd_file, lambda data: throttle.push(buffer.feed(data))
        )
        moved: BackgroundTask | None = None
        try:
            with ws.background_tasks().foreground() as to_background:
                waited = await shell.wait(timeout_ms / 1000, ctx.abort, also=to_background)
            if waited == "other":  # Ctrl+B: it goes on as a background task
                throttle.push(buffer.finish())
                try:
                    moved = ws.background_tasks().start(
                        shell,
                        inp.command,
                        inp.description,
                        _cleanup(finish, cwd_file),
                        output_so_far=buffer.render().text,
                    )
                except BaseException:  # no task holds it: it must not run on unseen
                    await shell.stop_now(self.kill_grace)
                    raise
                return _moved_result(moved, buffer)
            outcome: Outcome = waited
            await shell.stop(self.kill_grace)
            if not await shell.drained(_DRAIN_SECONDS):
                notes.append(
                    "(Stopped reading output: a process that detached from the command "
                    "still holds it open.)"
                )
            cwd_note = _adopt_cwd(ws, cwd_file)
            if cwd_note:
                notes.append(cwd_note)
        except asyncio.CancelledError:
            # The engine turns the cancellation into an "interrupted" result; the
            # output so far has already gone out as progress and, if long, to a file.
            if moved is None:
                await shell.stop_now(self.kill_grace)
            raise
        finally:
            if moved is None:
                shell.close()
                try:
                    if shell.returncode is not None:  # bwrap is gone, and with it all it ran
                        # Off the event loop: it looks through what the command changed.
                        notes.extend(await asyncio.to_thread(finish))
                finally:
                    throttle.push(buffer.finish())
                    cwd_file.unlink(missing_ok=True)
            throttle.close()
        return _result(buffer, outcome, shell.returncode, timeout_ms, notes)

    async def _start_background(
        self,
        inp: BashInput,
        ctx: ToolContext,
        cwd: Path,
        env: dict[str, str],
        cwd_file: Path,
        notes: list[str],
    ) -> ToolResult:
        """`run_in_background`: the same shell, sandbox and environment as in the
        foreground (never an editor's terminal: the session owns its tasks), handed to
        the session's tasks; the call returns at once. The working directory it ends in
        is not adopted: the next calls do not wait for it."""
        ws = ctx.workspace
        tasks = ws.background_tasks()
        shell, finish = await _spawn(ws, inp.command, cwd, env, cwd_file, _discard)
        cleanup = _cleanup(finish, cwd_file)
        try:
            task = tasks.start(shell, inp.command, inp.description, cleanup)
        except BaseException:  # no task holds it (its output file could not be made)
            await shell.stop_now(self.kill_grace)
            shell.close()
            cleanup()
            raise
        lines = [
            f"Command running in the background with ID: {task.id}.",
            f"Its output goes to {task.output.path} (read it with TaskOutput, task_id "
            f"{task.id!r}; end it with TaskStop).",
            *notes,
        ]
        return ToolResult("\n".join(lines))


def _discard(_data: bytes) -> None:
    """Output before a task takes its shell over (none: it redirects at once)."""


def _cleanup(finish: Callable[[], list[str]], cwd_file: Path) -> Callable[[], list[str]]:
    """What to do when a background command is over: the sandbox's clean-up and its
    notes; its working-directory file goes."""

    def done() -> list[str]:
        try:
            return finish()
        finally:
            cwd_file.unlink(missing_ok=True)

    return done


def _moved_result(task: BackgroundTask, buffer: OutputBuffer) -> ToolResult:
    rendered = buffer.render().text.rstrip("\n")
    parts = [rendered] if rendered.strip() else []
    parts.append(
        f"The person moved this command to the background (Ctrl+B); it goes on as task "
        f"{task.id}. Its output goes to {task.output.path}: read what comes next with "
        f"TaskOutput (task_id {task.id!r}), end it with TaskStop."
    )
    return ToolResult("\n".join(parts), display=CommandDisplay(exit_code=None))


async def _spawn(
    ws: Workspace,
    command: str,
    cwd: Path,
    env: dict[str, str],
    cwd_file: Path,
    on_data: Callable[[bytes], None],
) -> tuple[Shell, Callable[[], list[str]]]:
    """The shell of `command`, in its sandbox when the workspace has one; and what to
    call when it is over (the sandbox's clean-up)."""
    scratch = ws.scratch()
    finish: Callable[[], list[str]] = _nothing_to_finish
    try:
        prepared = await _prepare_sandbox(ws, cwd, scratch / _RC_NAME, cwd_file)
        if prepared is not None:
            finish = prepared.finish
        with _launch(command, env, prepared) as launch:
            shell = await Shell.spawn(launch, cwd, env, on_data)
    except BaseException:
        cwd_file.unlink(missing_ok=True)
        finish()  # nothing started: what was set up for it goes
        raise
    return shell, finish


async def _in_terminal(
    terminals: Terminals,
    inp: BashInput,
    ctx: ToolContext,
    cwd: Path,
    env: dict[str, str],
    cwd_file: Path,
    buffer: OutputBuffer,
    notes: list[str],
) -> ToolResult:
    """Run the command in the workspace's terminals; the result reads as a local run's."""
    timeout_ms = inp.timeout or DEFAULT_TIMEOUT_MS
    changed = {name: value for name, value in env.items() if os.environ.get(name) != value}
    command = ShellCommand(
        ["bash", "-c", inp.command], cwd, changed, timeout_ms / 1000, ctx.tool_use_id
    )
    try:
        done = await terminals.run(command, ctx.abort)
        cwd_note = _adopt_cwd(ctx.workspace, cwd_file)
    finally:
        cwd_file.unlink(missing_ok=True)
    if cwd_note:
        notes.append(cwd_note)
    buffer.feed(done.output.encode("utf-8", "surrogateescape"))
    buffer.finish()
    return _result(buffer, done.outcome, done.returncode, timeout_ms, notes)


def _nothing_to_finish() -> list[str]:
    return []


def _check_sandbox(ws: Workspace) -> None:
    if ws.sandbox is not None:
        problem = ws.sandbox.problem([ws.root, *ws.extra_dirs])
        if problem is not None:
            raise ToolError(unavailable_message(problem))


async def _prepare_sandbox(
    ws: Workspace, cwd: Path, rc_file: Path, cwd_file: Path
) -> Prepared | None:
    """The command's sandbox, set up off the event loop (it looks through the project),
    or None without one."""
    if ws.sandbox is None:
        return None
    try:
        return await asyncio.to_thread(
            ws.sandbox.prepare,
            writable=[ws.root, *ws.extra_dirs],
            cwd=cwd,
            read_files=[rc_file],
            write_files=[cwd_file],
        )
    except LaunchRefused as refused:
        raise ToolError(f"The sandbox did not run the command: {refused}.") from None


@contextmanager
def _launch(command: str, env: dict[str, str], prepared: Prepared | None) -> Iterator[Launch]:
    """`bash -c command`, directly or in its prepared sandbox."""
    on_path = shutil.which("bash", path=env.get("PATH"))
    bash = on_path or shutil.which("bash")
    if bash is None:
        raise ToolError("bash was not found on PATH.")
    if prepared is None:
        # argv[0] "bash": error messages read "bash: ...", not a full path.
        yield Launch(["bash", "-c", command], bash, ())
        return
    # Found on the same PATH inside the sandbox.
    with prepared.launch(["bash" if on_path else bash, "-c", command]) as launch:
        yield launch


def _start_dir(ws: Workspace, notes: list[str]) -> Path:
    cwd = ws.shell_cwd or ws.root
    if not cwd.is_dir():
        notes.append(f"(The previous working directory {cwd} no longer exists; ran in {ws.root}.)")
        ws.shell_cwd = cwd = ws.root
    return cwd


def _new_cwd_file(scratch: Path) -> Path:
    """An empty file for the shell's final directory (it must exist to be bound into a sandbox)."""
    path = scratch / f"bash-cwd-{uuid.uuid4().hex}"
    os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    return path


def _shell_env(ws: Workspace, scratch: Path, cwd_file: Path) -> dict[str, str]:
    env = child_env(ws.env)  # without agentcli's credentials, unless settings pass them on
    if env.get("BASH_ENV"):
        env["AGENTCLI_BASH_ENV"] = env["BASH_ENV"]  # sourced after ours, as bash would
    rc_file = scratch / _RC_NAME
    if not _holds(rc_file, _RC_SCRIPT):  # missing, or left by another version
        write_private_atomic(rc_file, _RC_SCRIPT)
    env["BASH_ENV"] = str(rc_file)
    env["AGENTCLI_CWD_FILE"] = str(cwd_file)
    return env


def _holds(path: Path, text: str) -> bool:
    try:
        return path.read_text(encoding="utf-8") == text
    except (OSError, UnicodeDecodeError):
        return False


def _adopt_cwd(ws: Workspace, cwd_file: Path) -> str | None:
    """Keep the shell's final directory if it is inside the project; else reset to root."""
    try:
        text = os.fsdecode(cwd_file.read_bytes()).removesuffix("\n")
    except OSError:
        return None  # no EXIT trap ran (exec, a replaced trap): keep the old directory
    if not text:
        return None
    final = Path(text)
    if ws.is_inside(final):
        ws.shell_cwd = final
        return None
    ws.shell_cwd = ws.root
    return (
        f"(Working directory reset to the project root {ws.root}: {text} is outside the project.)"
    )


def _result(
    buffer: OutputBuffer,
    outcome: Outcome,
    returncode: int | None,
    timeout_ms: int,
    notes: list[str],
) -> ToolResult:
    rendered = buffer.render()
    body = rendered.text.rstrip("\n")
    parts = [body if body.strip() else "(no output)"]
    exit_code: int | None = None
    if outcome == "exited":
        exit_code = shell_exit_code(returncode)
        if exit_code != 0:
            parts.append(f"Exit code: {exit_code}{_signal_note(returncode)}")
    elif outcome == "timed_out":
        parts.append(
            f"Command timed out after {format_ms(timeout_ms)}; it was stopped "
            "together with every process it started."
        )
    else:
        parts.append("Command was interrupted; it was stopped with every process it started.")
    parts.extend(notes)
    path = rendered.full_output_path
    return ToolResult(
        "\n".join(parts),
        # As Claude Code marks it: the command failed. The output is in the result all the
        # same, for the model, and for the person (the app's pane, the editor's card).
        is_error=outcome != "exited" or exit_code != 0,
        display=CommandDisplay(
            exit_code=exit_code,
            timed_out=outcome == "timed_out",
            interrupted=outcome == "interrupted",
            output_file=str(path) if path else None,
        ),
    )


def _signal_note(returncode: int | None) -> str:
    if returncode is None or returncode >= 0:
        return ""
    try:
        return f" (killed by {signal.Signals(-returncode).name})"
    except ValueError:
        return f" (killed by signal {-returncode})"


def format_ms(ms: int) -> str:
    if ms < 1000:
        return f"{ms}ms"
    seconds = ms / 1000
    if seconds < 60:
        return f"{seconds:g}s"
    minutes, rest = divmod(round(seconds), 60)
    return f"{minutes}m {rest}s" if rest else f"{minutes}m"
