"""`agentcli -p`: one conversation to its end, no questions asked, then exit.

Exit status 0 when the run completed, 1 on any error result; errors go to
stderr in one line (`report`, which cleans it when stderr is a terminal).
Ctrl+C interrupts the turn cleanly (a second one quits).
"""

from __future__ import annotations

import asyncio
import signal
import sys
import threading
import time
from pathlib import Path
from typing import Any

EXIT_OK, EXIT_ERROR = 0, 1


def main(args: Any, prompt: str) -> int:
    # The SDK import is the slowest step of a run; start it now, alongside set-up.
    importer = threading.Thread(target=_import_sdk, daemon=True)
    importer.start()
    try:
        return asyncio.run(_run(args, prompt, importer))
    except KeyboardInterrupt:
        print("agentcli: interrupted", file=sys.stderr)
        return 130


def _import_sdk() -> None:
    try:
        import anthropic  # noqa: F401
    except Exception:  # reported properly when the provider is built
        pass


async def _run(args: Any, prompt: str, importer: threading.Thread) -> int:
    from agentcli.bootstrap import Options, build_engine, make_provider
    from agentcli.headless_output import Output, RunSummary, report
    from agentcli.permissions.gate import headless_approver
    from agentcli.permissions.session_setup import engine_startup_notices
    from agentcli.providers.base import ModelError, close_provider
    from agentcli.session.attach import SessionNotFound, finish_session, resumed_for_headless

    started = time.monotonic()
    options = Options.from_args(args, Path.cwd())
    try:
        resumed = resumed_for_headless(options)
    except SessionNotFound as error:
        report(f"error: {error}")
        return EXIT_ERROR
    for notice in resumed.notices if resumed else []:
        report(str(notice))
    engine = build_engine(options, headless_approver, provider=None, resumed=resumed)
    for notice in engine_startup_notices(engine):  # skipped settings files, bypass warning
        report(f"warning: {notice}")
    importer.join()
    try:
        engine.provider = make_provider()
    except ModelError as error:
        report(f"error: {error.message}")
        return EXIT_ERROR

    output = Output(args.output_format, engine.session_id, verbose=args.verbose)
    output.init(
        engine.config.model,
        engine.visible_tools().names(),
        str(engine.workspace.root),
        engine.gate.policy.mode.value,
    )
    summary = RunSummary(session_id=engine.session_id)
    _install_interrupt(engine)
    for notice in await engine.start_session("resume" if resumed else "startup"):
        report(f"hook: {notice}")
    async for event in engine.submit_message(prompt):
        output.event(event, summary)
    for notice in await engine.end_session("other"):
        report(f"hook: {notice}")
    await close_provider(engine.provider)
    problem = finish_session(engine)
    if problem:
        report(f"warning: {problem}")
    summary.num_turns = engine.turns
    summary.usage = engine.usage.to_dict()
    summary.total_cost_usd = engine.cost_usd
    summary.duration_ms = int((time.monotonic() - started) * 1000)
    output.finish(summary)
    return EXIT_ERROR if summary.is_error else EXIT_OK


def _install_interrupt(engine: Any) -> None:
    """First Ctrl+C stops the turn cleanly; the second one quits at once."""
    loop = asyncio.get_running_loop()
    presses = 0

    def on_sigint() -> None:
        nonlocal presses
        presses += 1
        if presses > 1:
            loop.remove_signal_handler(signal.SIGINT)
            raise KeyboardInterrupt
        engine.interrupt()

    try:
        loop.add_signal_handler(signal.SIGINT, on_sigint)
    except (NotImplementedError, RuntimeError):
        pass
