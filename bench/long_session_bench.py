"""Long sessions: resuming 2,000 and 10,000 messages against a plain start, in the same run.

The sessions are made by the real agent against the fake API
(bench/long_session_build.py, kept between runs). Measured in a terminal
(pexpect), from spawning `agentcli` until the newest answer is on screen and
three typed characters have echoed in the prompt, against `agentcli` with no
session until its banner shows and typing echoes; the app's RSS once ready
(and two seconds later, when anything built in the background is there);
and `agentcli -p --continue` of the long sessions against a short one.

Goals (issue 25): the resume of 2,000 messages within 1.5x the plain start,
10,000 usable, the RSS after resuming 10,000 at most 2x that of no session.
Every run works on a copy of the kept session, so none changes it. With
AGENTCLI_BENCH_BEFORE naming another checkout of agentcli (e.g. `git worktree` or
`git archive` of main), that one is measured too, interleaved with this one, and
reported after it ("before: ..."): a change's before and after in the same run.
"""

from __future__ import annotations

import os
import shutil
import signal
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, NamedTuple

from bench.common import median_of, report, run_child
from bench.long_session_build import MESSAGES_PER_PROMPT, fresh_copy, marker, session_for
from bench.startup_bench import agentcli_binary, bench_env
from bench.tui_ready_bench import cpu_seconds

RUNS = 3
SIZES = (2000, 10000)
SHORT = 20
RESUME_GOAL = 1.5
RSS_GOAL = 2.0
TYPED = "qjz"
SETTLE_S = 2.0
TIMEOUT_S = 120


class Ready(NamedTuple):
    wall_s: float
    cpu_s: float
    rss_mb: float  # when ready
    settled_rss_mb: float  # SETTLE_S later


def rss_of(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def time_until_ready(
    exe: str, args: list[str], env: dict[str, str], cwd: Path, shown: str
) -> Ready:
    """From spawning the app until `shown` is on screen and typed keys have echoed."""
    import pexpect

    started = time.perf_counter()
    child = pexpect.spawn(exe, args, cwd=str(cwd), env=env, dimensions=(40, 120), timeout=30)
    screen = b""

    def wait_for(text: str) -> None:
        nonlocal screen
        wanted = text.encode()
        while wanted not in screen:
            try:
                screen += child.read_nonblocking(1 << 20, timeout=0.01)
            except pexpect.TIMEOUT:
                pass
            if time.perf_counter() - started > TIMEOUT_S:
                raise RuntimeError(f"{exe} {' '.join(args)}: {text!r} never showed")

    try:
        wait_for(shown)
        screen = b""
        child.send(TYPED)
        wait_for(TYPED)
        wall = time.perf_counter() - started
        cpu, rss = cpu_seconds(child.pid), rss_of(child.pid)
        until = time.perf_counter() + SETTLE_S
        while time.perf_counter() < until:  # keep the terminal drained meanwhile
            try:
                child.read_nonblocking(1 << 20, timeout=0.05)
            except pexpect.TIMEOUT:
                pass
        return Ready(wall, cpu, rss, rss_of(child.pid))
    finally:
        child.kill(signal.SIGKILL)  # the time to quit is not what is measured
        child.close(force=True)


def main() -> None:
    from tests.fakeapi import FakeAnthropic, reply, text

    exe = agentcli_binary()
    scratch = Path(tempfile.mkdtemp(prefix="agentcli-long-bench-"))
    requests = threading.Event()

    def answer(body: dict[str, Any]) -> Any:
        requests.set()
        return reply(text("All right."))

    try:
        with FakeAnthropic() as server:
            server.default = answer
            env = {**bench_env(str(scratch)), "TERM": "xterm-256color"}
            env["ANTHROPIC_BASE_URL"] = server.base_url
            started = time.perf_counter()
            built = {n: session_for(n, env) for n in (SHORT, *SIZES)}
            print(f"   sessions ready in {time.perf_counter() - started:.1f} s", flush=True)
            _resume(exe, env, built)
            _headless(exe, env, built)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def variants(env: dict[str, str]) -> list[tuple[str, dict[str, str]]]:
    """(label, environment) of each agentcli measured: this one, and the checkout
    AGENTCLI_BENCH_BEFORE names if set (its modules first on the path), so a change
    is measured against what it changes in the same run, the two interleaved."""
    before = os.environ.get("AGENTCLI_BENCH_BEFORE")
    found = [("", env)]
    if before:
        found.append(("before: ", {**env, "PYTHONPATH": before}))
    return found


def _resume(exe: str, env: dict[str, str], built: dict[int, tuple[Path, Path]]) -> None:
    measured = variants(env)
    plain: dict[str, list[Ready]] = {label: [] for label, _ in measured}
    resumed: dict[tuple[str, int], list[Ready]] = {
        (label, n): [] for label, _ in measured for n in SIZES
    }
    short_project, short_home = built[SHORT]
    for run in range(RUNS + 1):  # the first round writes the bytecode caches, unmeasured
        for label, base_env in measured:
            home = fresh_copy(short_home)
            sample = time_until_ready(
                exe, [], {**base_env, "AGENTCLI_HOME": str(home)}, short_project, "model:"
            )
            shutil.rmtree(home, ignore_errors=True)
            if run:
                plain[label].append(sample)
            for n in SIZES:
                project, kept = built[n]
                home = fresh_copy(kept)
                newest = marker(n // MESSAGES_PER_PROMPT - 1)
                child_env = {**base_env, "AGENTCLI_HOME": str(home)}
                sample = time_until_ready(exe, ["--continue"], child_env, project, newest)
                shutil.rmtree(home, ignore_errors=True)
                if run:
                    resumed[(label, n)].append(sample)
    for label, _ in measured:
        _report_resume(label, plain[label], {n: resumed[(label, n)] for n in SIZES})


def _report_resume(label: str, plain: list[Ready], resumed: dict[int, list[Ready]]) -> None:
    base = median_of([s.wall_s for s in plain])
    base_cpu = median_of([s.cpu_s for s in plain])
    base_rss = median_of([s.settled_rss_mb for s in plain])
    report(
        f"{label}agentcli, no session: banner shown, typing echoed",
        f"{base * 1000:.0f} ms (CPU {base_cpu * 1000:.0f} ms), RSS {base_rss:.0f} MB",
        "-",
        True,
    )
    for n in SIZES:
        wall = median_of([s.wall_s for s in resumed[n]])
        cpu = median_of([s.cpu_s for s in resumed[n]])
        rss = median_of([s.rss_mb for s in resumed[n]])
        settled = median_of([s.settled_rss_mb for s in resumed[n]])
        ratio = wall / base
        report(
            f"{label}--continue {n:,} messages: newest answer, typing echoed",
            f"{wall * 1000:.0f} ms (CPU {cpu * 1000:.0f} ms)",
            "-",
            True,
        )
        goal = n <= 2000
        report(
            "  ratio to no session",
            f"{ratio:.2f}x",
            f"<= {RESUME_GOAL}x" if goal else "usable",
            ratio <= RESUME_GOAL if goal else True,
        )
        report("  the same in CPU time (a busy machine)", f"{cpu / base_cpu:.2f}x", "-", True)
        rss_ratio = settled / base_rss
        report(
            "  RSS once settled, ratio to no session",
            f"{settled:.0f} MB ({rss:.0f} when ready), {rss_ratio:.2f}x",
            f"<= {RSS_GOAL}x",
            rss_ratio <= RSS_GOAL,
        )


def _headless(exe: str, env: dict[str, str], built: dict[int, tuple[Path, Path]]) -> None:
    measured = variants(env)
    times: dict[tuple[str, int], list[float]] = {
        (label, n): [] for label, _ in measured for n in built
    }
    for _ in range(RUNS):
        for label, base_env in measured:
            for n, (project, kept) in built.items():
                home = fresh_copy(kept)
                child_env = {**base_env, "AGENTCLI_HOME": str(home)}
                argv = [exe, "-p", "--continue", "and now?"]
                times[(label, n)].append(run_child(argv, child_env, cwd=project).wall_s)
                shutil.rmtree(home, ignore_errors=True)
    for label, _ in measured:
        short = median_of(times[(label, SHORT)])
        report(f"{label}-p --continue, {SHORT} messages", f"{short * 1000:.0f} ms", "-", True)
        for n in SIZES:
            wall = median_of(times[(label, n)])
            report(
                f"{label}-p --continue, {n:,} messages",
                f"{wall * 1000:.0f} ms, {wall / short:.2f}x",
                "little more",
                True,
            )


if __name__ == "__main__":
    main()
