"""`agentcli -p`: one conversation to its end, no questions asked, then exit.

Exit status 0 when the run completed, 1 on any error result; errors go to
stderr in one line (`report`, which cleans it when stderr is a terminal).
Ctrl+C interrupts the turn cleanly (a second one quits). SIGTERM and SIGHUP
interrupt it the same way (commands killed, transcript marked, the result
object still written) and exit with 143 / 129. Running -p in a folder trusts
it, as in Claude Code: its project settings (hooks, env, mode, allow rules)
apply without a question.
"""

from __future__ import annotations

import asyncio
import os
import signal
import time
from contextlib import nullcontext
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentcli.frontends.output_streams import EXIT_STDOUT_GONE, Stdout, say

if TYPE_CHECKING:
    from agentcli.commands.command_run import CommandRun
    from agentcli.commands.headless_prompt import BuiltinCommand, HeadlessPrompt
    from agentcli.core.abort import AbortSignal
    from agentcli.core.messages import Block
    from agentcli.engine.events import Event
    from agentcli.engine.query_engine import QueryEngine
    from agentcli.frontends.headless.output import Output
    from agentcli.mcp.manager import McpManager
    from agentcli.permissions.question import PermissionQuestion
    from agentcli.permissions.question_models import PermissionAnswer
    from agentcli.session.loader import LoadedSession
    from agentcli.wiring.bootstrap import Options

EXIT_OK, EXIT_ERROR = 0, 1


def main(args: Any, prompt: str) -> int:
    try:
        return asyncio.run(_run(args, prompt))
    except KeyboardInterrupt:
        say("agentcli: interrupted")
        return 130


async def _run(args: Any, prompt: str) -> int:
    from agentcli.commands.headless_prompt import Refused, read_prompt
    from agentcli.core.abort import AbortSignal
    from agentcli.frontends.headless.output import report
    from agentcli.wiring.bootstrap import Options, build_engine, engine_startup_notices
    from agentcli.wiring.composition import finish_session

    started = time.monotonic()
    abort = AbortSignal()  # the turn's, made now so a signal during set-up stops it too
    stopped_by = _install_signals(abort)
    stdout = Stdout()  # its reader leaving stops the run as a signal does
    stdout.on_gone(lambda: abort.abort("stdout was closed"))
    stdout.watch(asyncio.get_running_loop())
    options = replace(Options.from_args(args, Path.cwd()), trusted=True)  # -p implies trust
    resumed = None
    if options.resume is not None or options.continue_session:  # else nothing to load
        from agentcli.session.resume import SessionNotFound

        try:
            resumed = _resumed(options)
        except SessionNotFound as error:
            report(f"error: {error}")
            return EXIT_ERROR
    for notice in resumed.notices if resumed else []:
        report(str(notice))
    engine = build_engine(options, provider=None, resumed=resumed)
    for startup in engine_startup_notices(engine):  # skipped settings files, bypass warning
        if startup.level != "info":
            report(f"warning: {startup.text}")
        elif args.verbose:  # a Claude Code key agentcli does not use: no mistake
            report(f"note: {startup.text}")
    reading, problems = read_prompt(engine, prompt)  # a slash command, or prose
    for problem in problems:  # command files that could not be used
        report(f"warning: custom command: {problem}")
    if isinstance(reading, Refused):  # said before anything starts or is sent
        report(f"error: {reading.message}")
        finish_session(engine)
        return EXIT_ERROR
    mcp = engine.mcp
    try:
        if mcp is not None and mcp.configured:
            await _start_mcp(mcp)
        run = _Run(args, prompt, abort, started, stopped_by, stdout, resumed=resumed is not None)
        return await _run_engine(engine, run, reading)
    finally:
        if mcp is not None:
            await mcp.close()  # every stdio server's process ends with the run


async def _start_mcp(mcp: McpManager) -> None:
    from agentcli.mcp.manager import load_sdk

    await asyncio.to_thread(load_sdk)
    await mcp.start()


@dataclass
class _Run:
    """What the command line and the set-up hand the run."""

    args: Any
    prompt: str
    abort: AbortSignal
    started: float  # time.monotonic() at start
    stopped_by: list[int]  # SIGTERM / SIGHUP, once one arrived
    stdout: Stdout
    resumed: bool


async def _run_engine(engine: QueryEngine, run: _Run, reading: HeadlessPrompt) -> int:
    """Connect the provider, wait for the MCP servers, then: run a built-in command, or
    expand a custom command (in its turn's scope: the tools it allows, its model), and
    run the prompt to its end."""
    from agentcli.commands.headless_prompt import BuiltinCommand, CustomCommand
    from agentcli.frontends.headless.output import report
    from agentcli.mcp.oneshot import wait_for_servers
    from agentcli.providers.base import ModelError, close_provider
    from agentcli.providers.tuning import ApiTuning
    from agentcli.wiring.bootstrap import make_provider
    from agentcli.wiring.composition import finish_session

    tuning = ApiTuning.from_env()
    for malformed in tuning.problems:  # a malformed AGENTCLI_* timing: its default is used
        report(f"warning: {malformed}")
    try:
        engine.connect(make_provider(tuning, engine.settings, engine.config.model))
    except ModelError as error:
        report(f"error: {error.message}")
        return EXIT_ERROR
    if engine.mcp is not None:  # a one-shot run waits for its servers, briefly (mcp/oneshot.py)
        for warning in await wait_for_servers(engine.mcp, run.abort):
            report(warning)

    if isinstance(reading, BuiltinCommand):
        return await _run_builtin(engine, run, reading)
    command = reading.run if isinstance(reading, CustomCommand) else None
    with command.turn() if command is not None else nullcontext():
        prompt = run.prompt if command is None else await _expanded(command, run.abort)
        if prompt is None:
            await close_provider(engine.provider)
            finish_session(engine)
            return _exit_status(run, failed=True)
        return await _converse(engine, run, prompt)


async def _run_builtin(engine: QueryEngine, run: _Run, builtin: BuiltinCommand) -> int:
    """`-p "/cost"`: the command's text is the answer; no request is made but the
    command's own (`-p --continue "/compact"`: the summary, then its boundary line)."""
    from agentcli.commands.headless_prompt import run_builtin
    from agentcli.frontends.headless.output import RunSummary
    from agentcli.providers.base import close_provider
    from agentcli.wiring.composition import finish_session

    output = _output(engine, run)
    said, failed = await run_builtin(engine, builtin, output.event)
    summary = RunSummary.of_command(engine.session_id, said, failed, engine.usage, engine.cost_usd)
    summary.duration_ms = int((time.monotonic() - run.started) * 1000)
    await close_provider(engine.provider)
    finish_session(engine)
    output.finish(summary)
    return _exit_status(run, failed=summary.is_error)


def _output(engine: QueryEngine, run: _Run) -> Output:
    """The run's output in its format, its `system/init` line written."""
    from agentcli.frontends.headless.output import Output
    from agentcli.mcp.status import sdk_status

    args = run.args
    partial = bool(getattr(args, "include_partial_messages", False))
    output = Output(
        args.output_format, engine.session_id, run.stdout, verbose=args.verbose, partial=partial
    )
    output.init(
        engine.config.model,
        engine.visible_tools().names(),
        str(engine.workspace.root),
        engine.gate.policy.mode.value,
        mcp_servers=[(s.name, sdk_status(s.state)) for s in engine.mcp.status()]
        if engine.mcp
        else [],
        plugins=[(plugin.name, str(plugin.root)) for plugin in engine.places.plugins],
    )
    return output


async def _expanded(command: CommandRun, abort: AbortSignal) -> list[Block] | None:
    """A custom command's prompt (`-p "/fix-issue 123"`); None, said on stderr, when it
    cannot be made: a `!` command not allowed (nobody can be asked here) or not done in
    its bound, or the run stopped (a signal, stdout closed: the command is killed)."""
    from agentcli.commands.command_run import (
        SHELL_TIMEOUT_VARIABLE,
        ShellTimedOut,
        headless_shell_timeout,
    )
    from agentcli.commands.expansion import ExpansionError
    from agentcli.frontends.headless.output import report
    from agentcli.permissions.gate import headless_answer

    async def ask(question: PermissionQuestion) -> PermissionAnswer:
        return headless_answer(question.request)

    bound, malformed = headless_shell_timeout(os.environ)
    if malformed:
        report(f"warning: {malformed}")
    making = asyncio.ensure_future(command.content(ask, shell_timeout_ms=bound))
    stop = abort.on_abort(making.cancel)
    try:
        expansion = await making
    except ShellTimedOut as problem:
        report(f"error: {problem} ({SHELL_TIMEOUT_VARIABLE} sets the bound, in ms)")
        return None
    except ExpansionError as problem:
        report(f"error: {problem}")
        return None
    except asyncio.CancelledError:
        if not abort.aborted:
            raise
        report(f"error: /{command.command.name}: {abort.reason or 'interrupted'}")
        return None
    finally:
        stop()
    return expansion.blocks


async def _converse(engine: QueryEngine, run: _Run, prompt: str | list[Block]) -> int:
    """Run the prompt to its end (frontends/driver) and write the result."""
    from agentcli.frontends.driver import drive
    from agentcli.frontends.headless.output import RunSummary, report
    from agentcli.providers.base import close_provider
    from agentcli.wiring.composition import finish_session

    output = _output(engine, run)
    for notice in await engine.start_session("resume" if run.resumed else "startup"):
        report(f"hook: {notice}")
    tally = await drive(engine, prompt, _Headless(output), abort=run.abort)
    for notice in await engine.end_session("other"):
        report(f"hook: {notice}")
    await close_provider(engine.provider)
    problem = finish_session(engine)
    if problem:
        report(f"warning: {problem}")
    summary = RunSummary.of_turn(engine.session_id, tally)
    summary.num_turns = engine.turns  # the session's, a resumed one's earlier turns too
    summary.usage = engine.usage.to_dict()
    summary.duration_ms = int((time.monotonic() - run.started) * 1000)  # set-up included
    output.finish(summary)  # writes nothing once the reader is gone (SIGHUP, a closed pipe)
    return _exit_status(run, failed=summary.is_error)


class _Headless:
    """`-p` as the driver's front end: each event in the output format; every question
    refused at once (nobody can answer here), its reason told to the model."""

    def __init__(self, output: Output) -> None:
        self.output = output

    async def show(self, event: Event) -> None:
        self.output.event(event)

    async def answer(self, question: PermissionQuestion) -> PermissionAnswer:
        from agentcli.permissions.gate import headless_answer

        return headless_answer(question.request)


def _exit_status(run: _Run, *, failed: bool) -> int:
    """128 + the signal that stopped the run; 141 when stdout was closed; else 1 or 0."""
    from agentcli.frontends.shutdown import exit_status

    if run.stopped_by:
        return exit_status(run.stopped_by[0])
    if run.stdout.gone:
        return EXIT_STDOUT_GONE
    return EXIT_ERROR if failed else EXIT_OK


def _resumed(options: Options) -> LoadedSession | None:
    """`--continue` / `--resume ID` (headless cannot show a picker). Raises
    SessionNotFound with the message for stderr."""
    from agentcli.session.resume import SessionNotFound, resolve_resumed

    if options.resume == "":
        raise SessionNotFound("--resume needs a session ID with -p (or use --continue)")
    return resolve_resumed(
        options.cwd,
        continue_latest=options.continue_session,
        resume_id=options.resume,
        context_only=True,  # the history before the last compaction is not needed here
    )


def _install_signals(abort: Any) -> list[int]:
    """Ctrl+C, SIGTERM and SIGHUP stop the turn cleanly; a second Ctrl+C quits at once.

    Returns the list that will hold SIGTERM / SIGHUP once one arrived (the exit
    status is then 128 + its number).
    """
    from agentcli.frontends.shutdown import TERMINATING_SIGNALS, on_signals, signal_name

    loop = asyncio.get_running_loop()
    stopped_by: list[int] = []
    presses = 0

    def on_signal(signum: int) -> None:
        nonlocal presses
        if signum == signal.SIGINT:
            presses += 1
            if presses > 1:
                loop.remove_signal_handler(signal.SIGINT)
                raise KeyboardInterrupt
            abort.abort("interrupted by user")
            return
        if not stopped_by:
            stopped_by.append(signum)
            abort.abort(f"interrupted by {signal_name(signum)}")

    on_signals(loop, (signal.SIGINT, *TERMINATING_SIGNALS), on_signal)
    return stopped_by
