"""Small helpers shared by the benchmarks: timing child processes, printing verdicts."""

from __future__ import annotations

import os
import statistics
import subprocess
import time
from collections.abc import Sequence
from typing import NamedTuple


class Child(NamedTuple):
    wall_s: float
    rss_kb: int  # peak RSS of that child alone
    cpu_s: float  # user + system


def run_child(argv: Sequence[str], env: dict[str, str] | None = None, cwd=None) -> Child:
    """Run a process to its end: its wall time, peak RSS and CPU time."""
    started = time.perf_counter()
    proc = subprocess.Popen(
        argv,
        env=env,
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - started
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        err = proc.stderr.read().decode() if proc.stderr else ""
        raise RuntimeError(f"{' '.join(argv)} exited {proc.returncode}: {err[-500:]}")
    if proc.stderr:
        proc.stderr.close()
    return Child(elapsed, usage.ru_maxrss, usage.ru_utime + usage.ru_stime)


def median_of(samples: Sequence[float]) -> float:
    return statistics.median(samples)


def verdict(ok: bool) -> str:
    return "PASS" if ok else "FAIL"


def report(label: str, value: str, goal: str, ok: bool) -> None:
    print(f"   {label:<48} {value:<28} goal {goal:<18} {verdict(ok)}", flush=True)
