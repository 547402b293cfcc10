"""`make bench`: every benchmark, each printing ratios against a baseline measured in the same run.

Run one alone with `python -m bench.<name>`; `python -m bench NAME...` runs a selection.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import time

BENCHMARKS = (
    "startup_bench",
    "tui_ready_bench",
    "loop_bench",
    "tools_bench",
    "shell_bench",
    "caching_bench",
    "ui_bench",
    "ui_session_bench",
    "live_session_bench",
    "long_session_bench",
    "long_session_keys_bench",
    "terminal_answers_bench",
    "mcp_bench",
)


def main(argv: list[str]) -> int:
    chosen = argv or list(BENCHMARKS)
    failed = []
    for name in chosen:
        module_name = name if name.endswith("_bench") else f"{name}_bench"
        if importlib.util.find_spec(f"bench.{module_name}") is None:
            print(f"== {module_name}: not present, skipped")
            continue
        print(f"== {module_name}", flush=True)
        started = time.perf_counter()
        # Each benchmark in its own process: memory numbers (RSS) must not carry
        # what an earlier benchmark left behind, nor its warm caches.
        code = f"import bench.{module_name} as b; b.main()"
        done = subprocess.run([sys.executable, "-c", code], check=False)
        if done.returncode != 0:
            failed.append(module_name)
        print(f"   ({time.perf_counter() - started:.1f} s)\n", flush=True)
    if failed:
        print(f"benchmarks that crashed: {', '.join(failed)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
