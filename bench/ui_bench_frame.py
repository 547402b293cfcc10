"""Time to the first frame ready for typing: `agentcli` beside a bare Textual app.

Both are started the same way, in a pseudo-terminal of 120x40, and timed from
spawn until the prompt's placeholder ("Type a message") appears in what they
write to the terminal (escape sequences stripped). Runs alternate between the
two so that machine noise hits both alike; the medians are compared.
"""

from __future__ import annotations

import os
import re
import shutil
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

PLACEHOLDER = "Type a message"
ROWS, COLUMNS = 40, 120
RUNS = 5
TIMEOUT = 10.0
RATIO_GOAL = 1.3

_ESCAPES = re.compile(
    r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[PX^_][^\x1b]*\x1b\\|[@-Z\\-_])"
)

MINIMAL_APP = f'''
from textual.app import App, ComposeResult
from textual.widgets import Input


class Minimal(App):
    def compose(self) -> ComposeResult:
        yield Input(placeholder="{PLACEHOLDER}")


Minimal().run()
'''


@dataclass
class FrameResult:
    name: str
    seconds: list[float]

    @property
    def median(self) -> float:
        return statistics.median(self.seconds)


def find_agentcli() -> str | None:
    local = Path(sys.executable).with_name("agentcli")
    if local.exists():
        return str(local)
    return shutil.which("agentcli")


def time_to_prompt(argv: list[str], env: dict[str, str], cwd: str) -> float | None:
    """Seconds from spawn until the placeholder shows, or None on timeout/exit."""
    import pexpect

    start = time.perf_counter()
    child = pexpect.spawn(
        argv[0],
        argv[1:],
        env=env,
        cwd=cwd,
        dimensions=(ROWS, COLUMNS),
        encoding="utf-8",
        codec_errors="replace",
    )
    seen = ""
    try:
        deadline = start + TIMEOUT
        while time.perf_counter() < deadline:
            try:
                data = child.read_nonblocking(65536, timeout=0.05)
            except pexpect.TIMEOUT:
                continue
            except pexpect.EOF:
                return None
            # Keep a tail: the placeholder may straddle two reads.
            seen = (seen + data)[-8192:]
            if PLACEHOLDER in _ESCAPES.sub("", seen):
                return time.perf_counter() - start
        return None
    finally:
        child.terminate(force=True)
        child.close(force=True)


def run(runs: int = RUNS) -> tuple[FrameResult | None, FrameResult]:
    """(agentcli or None when it does not open its app yet, the minimal app)."""
    agentcli = find_agentcli()
    with tempfile.TemporaryDirectory(prefix="agentcli-frame-") as tmp:
        env = {
            **os.environ,
            "ANTHROPIC_API_KEY": "test",
            "AGENTCLI_HOME": str(Path(tmp) / "home"),
            "TERM": "xterm-256color",
            "COLUMNS": str(COLUMNS),
            "LINES": str(ROWS),
        }
        env.pop("NO_COLOR", None)
        minimal_path = Path(tmp) / "minimal_app.py"
        minimal_path.write_text(MINIMAL_APP, encoding="utf-8")
        project = Path(tmp) / "project"
        project.mkdir()
        ours: list[float] = []
        minimal: list[float] = []
        app_available = agentcli is not None
        for _ in range(runs):
            if app_available:
                seconds = time_to_prompt([agentcli], env, str(project))
                if seconds is None:
                    app_available = False
                else:
                    ours.append(seconds)
            seconds = time_to_prompt([sys.executable, str(minimal_path)], env, str(project))
            if seconds is not None:
                minimal.append(seconds)
    if not minimal:
        raise RuntimeError("the minimal Textual app never showed its prompt")
    ours_result = FrameResult("agentcli", ours) if app_available and ours else None
    return ours_result, FrameResult("minimal Textual app", minimal)


def report(ours: FrameResult | None, minimal: FrameResult) -> list[str]:
    lines = [
        f"first frame ready for typing ({COLUMNS}x{ROWS} pty, median of {len(minimal.seconds)}):"
    ]
    lines.append(f"  {minimal.name:<22} {minimal.median * 1e3:7.0f} ms")
    if ours is None:
        lines.append("  first frame: app not available yet")
        return lines
    ratio = ours.median / minimal.median
    lines.append(f"  {ours.name:<22} {ours.median * 1e3:7.0f} ms")
    verdict = "ok" if ratio <= RATIO_GOAL else "MISSED"
    lines.append(f"  ratio {ratio:.2f}x (goal <= {RATIO_GOAL}x: {verdict})")
    return lines


if __name__ == "__main__":
    print("\n".join(report(*run())))
