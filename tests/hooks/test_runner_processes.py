"""One hook command as a process (hooks/runner.py): it ends within its timeout whatever
the command leaves behind, and its output is bounded while it runs."""

from __future__ import annotations

import asyncio
import json
import shlex
import sys
from pathlib import Path

from agentcli.config.hooks import HookCommand
from agentcli.hooks.runner import MAX_OUTPUT_CHARS, run_hook
from tests.support.escaped_children import escaping_child

# A hang fails here, with a message, before pytest's own limit.
HANG_LIMIT_S = 60.0


def hook(tmp_path: Path, script: str, timeout: float = HANG_LIMIT_S * 2) -> HookCommand:
    path = tmp_path / "hook.py"
    path.write_text(script, encoding="utf-8")
    return HookCommand(
        command=f"{shlex.quote(sys.executable)} {shlex.quote(str(path))}", timeout=timeout
    )


async def run(command: HookCommand, tmp_path: Path):
    return await asyncio.wait_for(
        run_hook(command, {"hook_event_name": "Stop"}, tmp_path), HANG_LIMIT_S
    )


async def test_a_hook_that_answers_and_exits_is_heard_though_its_child_keeps_the_pipe(
    tmp_path, escaped_children
):
    answer = {"decision": "block", "reason": "run the tests"}
    script = escaping_child(escaped_children) + f"print({json.dumps(answer)!r}, flush=True)\n"

    done = await run(hook(tmp_path, script), tmp_path)

    assert done.exit_code == 0 and not done.timed_out
    assert done.json_output() == answer


async def test_a_hook_past_its_timeout_is_stopped_though_its_child_keeps_the_pipe(
    tmp_path, escaped_children
):
    script = escaping_child(escaped_children) + "import time; time.sleep(600)\n"

    done = await run(hook(tmp_path, script, timeout=2), tmp_path)

    assert done.timed_out and done.exit_code is None


async def test_a_hook_that_writes_without_end_is_bounded_and_stopped_at_its_timeout(tmp_path):
    script = "import sys\nwhile True: sys.stdout.write('z' * 65536)\n"

    done = await run(hook(tmp_path, script, timeout=3), tmp_path)

    assert done.timed_out


async def test_a_hook_that_writes_a_lot_and_exits_keeps_the_start_of_it(tmp_path):
    script = "import sys\nsys.stdout.write('a' * 20_000_000)\nsys.stderr.write('b' * 20_000_000)\n"

    done = await run(hook(tmp_path, script), tmp_path)

    assert done.exit_code == 0
    assert done.stdout == "a" * MAX_OUTPUT_CHARS and done.stderr == "b" * MAX_OUTPUT_CHARS
