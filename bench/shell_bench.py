"""The Bash permission check: how long a decision takes, and what the parser costs.

1. The decision for a typical compound command (a `cd`, a pipeline, two rule
   matches, redirects) with the parser already loaded: median under 1 ms.
   Printed next to the bare tree-sitter parse of the same line, the floor.
2. The parser's import (tree_sitter + the bash grammar) in a fresh process,
   and proof that the modules the TUI needs for its first frame do not
   import it: the grammar and agentcli.permissions.shell load on the first
   Bash permission check, after the first frame (startup_bench and ui_bench
   measure the first frame itself).

Run alone with `python -m bench.shell_bench`.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.common import report

COMMAND = "cd src && git diff --stat | head -20 && npm test -- --watch=false 2>&1 | tail -5"
RULES = ["Bash(git diff:*)", "Bash(npm test:*)"]
DECISIONS = 3000
IMPORT_RUNS = 7
GOAL_MS = 1.0

_IMPORT_PROBE = (
    "import time; t = time.perf_counter();"
    "from agentcli.permissions.shell.parse import _parser; _parser();"
    "print((time.perf_counter() - t) * 1000)"
)
# What the TUI imports before its first frame: the app, the composition root, the policy.
# (Textual's TextArea imports tree_sitter's core by itself when it is installed, about
# 1 ms; the grammar and our analysis are what the permission check adds.)
_FIRST_FRAME_PROBE = (
    "import sys, agentcli.cli.main, agentcli.wiring.bootstrap, agentcli.frontends.tui.app, agentcli.permissions.gate;"
    "print(sorted(m for m in sys.modules"
    " if m.startswith(('tree_sitter_bash', 'agentcli.permissions.shell'))))"
)


def _median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def decision_times(root: Path) -> tuple[float, float]:
    from agentcli.config.rules import parse_tool_list
    from agentcli.permissions.policy import PermissionPolicy
    from agentcli.permissions.shell.parse import parse
    from agentcli.tools.base import Workspace
    from agentcli.tools.bash import BashInput, BashTool

    policy = PermissionPolicy(Workspace(root=root), allow=parse_tool_list(RULES, "bench", root))
    tool, inp = BashTool(), BashInput(command=COMMAND)
    assert policy.decide(tool, inp).behavior == "allow"
    decisions, parses = [], []
    for _ in range(DECISIONS):  # alternate so drift hits both alike
        started = time.perf_counter()
        policy.decide(tool, inp)
        decisions.append(time.perf_counter() - started)
        started = time.perf_counter()
        parse(COMMAND)
        parses.append(time.perf_counter() - started)
    return _median_ms(decisions), _median_ms(parses)


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="agentcli-shell-bench-") as folder:
        root = Path(folder)
        (root / "src").mkdir()
        decision, parse = decision_times(root)
    report(
        "typical compound command: decision (median)",
        f"{decision:.3f} ms ({decision / parse:.1f}x the parse)",
        f"< {GOAL_MS:g} ms",
        decision < GOAL_MS,
    )
    report("  the bare tree-sitter parse (median)", f"{parse:.3f} ms", "-", True)
    imports = [
        float(subprocess.run([sys.executable, "-c", _IMPORT_PROBE], capture_output=True,
                             text=True, check=True).stdout)
        for _ in range(IMPORT_RUNS)
    ]  # fmt: skip
    report(
        "parser import + grammar load (median)", f"{statistics.median(imports):.1f} ms", "-", True
    )
    loaded = subprocess.run(
        [sys.executable, "-c", _FIRST_FRAME_PROBE], capture_output=True, text=True, check=True
    ).stdout.strip()
    report("parser modules loaded before the first frame", loaded, "[]", loaded == "[]")


if __name__ == "__main__":
    main()
