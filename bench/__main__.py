"""`make bench`: every benchmark, each printing ratios against a baseline measured in the same run.

Run one alone with `python -m bench.<name>`; `python -m bench NAME...` runs a selection.
"""

from __future__ import annotations

import importlib
import sys
import time

BENCHMARKS = (
    "startup_bench",
    "loop_bench",
    "tools_bench",
    "caching_bench",
    "ui_bench",
    "ui_session_bench",
)


def main(argv: list[str]) -> int:
    chosen = argv or list(BENCHMARKS)
    for name in chosen:
        module_name = name if name.endswith("_bench") else f"{name}_bench"
        try:
            module = importlib.import_module(f"bench.{module_name}")
        except ModuleNotFoundError as missing:
            if missing.name == f"bench.{module_name}":
                print(f"== {module_name}: not present, skipped")
                continue
            raise
        print(f"== {module_name}")
        started = time.perf_counter()
        module.main()
        print(f"   ({time.perf_counter() - started:.1f} s)\n", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
