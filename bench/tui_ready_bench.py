"""The app, ready to send: from `agentcli hi` in a terminal until the fake API gets "hi".

A first prompt on the command line goes the moment the app can send it (the
engine built, the provider loaded, the session opened), so the time until
the server receives it is the time a person waits before a message they
type would leave. Issue 16's goal is 0.6 s; measured on the same machine as
"python: import the SDK, stream one request" (1.43 s there), that is 0.42x of
the baseline, which this benchmark measures in the same run so that a busy
machine does not decide the verdict. The app's CPU time by then is shown too.
"""

from __future__ import annotations

import os
import shutil
import signal
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from bench.common import median_of, report, run_child
from bench.startup_bench import SDK_STREAM, agentcli_binary, bench_env

RUNS = 5
READY_GOAL_S = 0.6
RATIO_GOAL = 0.42  # 0.6 s of the 1.43 s baseline in the issue


def cpu_seconds(pid: int) -> float:
    """The user + system CPU time a running process has used so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def time_until_sent(
    exe: str, env: dict[str, str], cwd: str, received: threading.Event
) -> tuple[float, float]:
    """From spawning the app in a terminal until the server has the first prompt:
    (wall seconds, the app's CPU seconds by then)."""
    import pexpect

    received.clear()
    started = time.perf_counter()
    child = pexpect.spawn(exe, ["hi"], cwd=cwd, env=env, dimensions=(30, 100), timeout=30)
    try:
        while not received.is_set():
            try:  # keep the terminal drained so the app never blocks on a write
                child.read_nonblocking(65536, timeout=0.01)
            except pexpect.TIMEOUT:
                pass
            if time.perf_counter() - started > 30:
                raise RuntimeError("the app never sent its first prompt")
        return time.perf_counter() - started, cpu_seconds(child.pid)
    finally:
        child.kill(signal.SIGTERM)
        child.close(force=True)


def main() -> None:
    from tests.fakeapi import FakeAnthropic, reply, text

    exe = agentcli_binary()
    home = tempfile.mkdtemp(prefix="agentcli-bench-")
    project = tempfile.mkdtemp(prefix="agentcli-bench-project-")
    env = {**bench_env(home), "TERM": "xterm-256color"}
    received = threading.Event()

    def answer(body: dict[str, Any]) -> Any:
        received.set()
        return reply(text("Hello!"))

    try:
        with FakeAnthropic() as server:
            server.default = answer
            env["ANTHROPIC_BASE_URL"] = server.base_url
            time_until_sent(exe, env, project, received)  # writes the bytecode caches
            base, ours = [], []
            for _ in range(RUNS):  # alternate so drift hits both alike
                base.append(run_child([sys.executable, "-c", SDK_STREAM], env, cwd=project))
                ours.append(time_until_sent(exe, env, project, received))
        b, o = median_of([c.wall_s for c in base]), median_of([wall for wall, _ in ours])
        b_cpu, o_cpu = median_of([c.cpu_s for c in base]), median_of([cpu for _, cpu in ours])
        report(
            "python: import the SDK, stream one request",
            f"{b * 1000:.0f} ms, CPU {b_cpu * 1000:.0f} ms",
            "-",
            True,
        )
        report(
            "agentcli hi: the first prompt sent",
            f"{o * 1000:.0f} ms, CPU {o_cpu * 1000:.0f} ms",
            f"<= {READY_GOAL_S * 1000:.0f} ms",
            o <= READY_GOAL_S,
        )
        ratio = o / b
        report(
            "  ratio to the SDK baseline", f"{ratio:.2f}x", f"<= {RATIO_GOAL}x", ratio <= RATIO_GOAL
        )
        report("  the same in CPU time (a busy machine)", f"{o_cpu / b_cpu:.2f}x", "-", True)
    finally:
        shutil.rmtree(home, ignore_errors=True)
        shutil.rmtree(project, ignore_errors=True)


if __name__ == "__main__":
    main()
