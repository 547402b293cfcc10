"""A `!command` as a process (frontends/tui/shell_mode.py): it ends when the command
does, or when Esc kills it, whatever the command leaves holding its output."""

from __future__ import annotations

import asyncio
import shlex
import sys
from pathlib import Path

from agentcli.frontends.tui.shell_mode import MAX_KEPT_CHARS, ShellRun
from tests.support.escaped_children import escaping_child

HANG_LIMIT_S = 60.0  # a hang fails here, with a message, before pytest's own limit


def command(tmp_path: Path, script: str) -> str:
    path = tmp_path / "cmd.py"
    path.write_text(script, encoding="utf-8")
    return f"{shlex.quote(sys.executable)} {shlex.quote(str(path))}"


async def test_the_run_ends_with_the_command_though_a_child_keeps_the_output(
    tmp_path, escaped_children
):
    script = escaping_child(escaped_children) + "print('built', flush=True)\n"
    shown: list[str] = []

    output, code = await asyncio.wait_for(
        ShellRun(command(tmp_path, script), tmp_path).run(shown.append), HANG_LIMIT_S
    )

    assert code == 0 and output == "built\n" and "".join(shown) == "built\n"


async def test_esc_ends_the_run_though_a_child_keeps_the_output(tmp_path, escaped_children):
    script = (
        escaping_child(escaped_children) + "print('up', flush=True)\nimport time; time.sleep(600)\n"
    )
    shown: list[str] = []
    run = ShellRun(command(tmp_path, script), tmp_path)
    running = asyncio.ensure_future(run.run(shown.append))
    while "up\n" not in "".join(shown):
        await asyncio.wait({running}, timeout=0.01)
        assert not running.done(), running.result()

    run.kill()
    output, code = await asyncio.wait_for(running, HANG_LIMIT_S)

    assert code is None and output == "up\n"


async def test_a_flood_of_output_is_kept_to_its_tail_and_split_characters_survive(tmp_path):
    # 'é' is two bytes: chunks of the pipe can end between them.
    script = "import sys\nsys.stdout.write('é' * 1_500_000 + 'end')\n"

    output, code = await ShellRun(command(tmp_path, script), tmp_path).run(lambda _text: None)

    assert code == 0
    assert len(output) == MAX_KEPT_CHARS and output.endswith("é" * 10 + "end")
    assert "\ufffd" not in output
