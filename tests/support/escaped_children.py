"""Commands that leave something behind holding their output pipe.

A command can start a child in a session of its own (`setsid daemon &`): killing
the command's process group does not reach it, and it keeps the command's stdout
open for as long as it lives. Whatever runs such a command must still end within
its own time limit. `escaping_child(pids)` is a Python fragment for a script that
starts one (`sleep 600`, its pid written to `pids`); the `escaped_children` fixture
kills them all when the test ends.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest


def escaping_child(pids: Path) -> str:
    """Python statements that start `sleep 600` in a new session, sharing our stdout."""
    return (
        "import subprocess as _sp\n"
        "_child = _sp.Popen(['sleep', '600'], start_new_session=True)\n"
        f"open({str(pids)!r}, 'a').write(f'{{_child.pid}}\\n')\n"
    )


@pytest.fixture
def escaped_children(tmp_path: Path) -> Iterator[Path]:
    """The file the fragment writes pids to; every pid in it is killed afterwards."""
    pids = tmp_path / "escaped.pids"
    yield pids
    if pids.exists():
        for line in pids.read_text().split():
            try:
                os.kill(int(line), signal.SIGKILL)
            except (ProcessLookupError, ValueError):
                pass
