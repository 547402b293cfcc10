"""Start-up: `--version`/`--help`, and a one-shot `agentcli -p hi` against the fake server.

The baseline for `-p` is `python -c "import anthropic"`, measured in the same
run: the SDK import is the floor any Python agent pays, so the goal is that
everything else we do adds at most 30% on top of it.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

from bench.common import median_of, report, run_child

RUNS = 7


def _agentcli() -> str:
    candidate = Path(sys.executable).with_name("agentcli")
    return str(candidate) if candidate.exists() else shutil.which("agentcli") or "agentcli"


def main() -> None:
    from tests.fakeapi import FakeAnthropic, reply, text

    exe = _agentcli()
    home = tempfile.mkdtemp(prefix="agentcli-bench-")
    project = tempfile.mkdtemp(prefix="agentcli-bench-project-")
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
    env.update(AGENTCLI_HOME=home, ANTHROPIC_API_KEY="bench-key")
    try:
        for flag in ("--version", "--help"):
            times = [run_child([exe, flag], env)[0] for _ in range(RUNS)]
            ms = median_of(times) * 1000
            report(f"agentcli {flag}", f"{ms:.0f} ms", "<= 100 ms", ms <= 100)

        with FakeAnthropic() as server:
            server.default = reply(text("Hello!"))
            env["ANTHROPIC_BASE_URL"] = server.base_url
            base, ours, base_rss, our_rss = [], [], [], []
            for _ in range(RUNS):  # alternate so drift hits both alike
                t, rss = run_child([sys.executable, "-c", "import anthropic"], env)
                base.append(t)
                base_rss.append(rss)
                t, rss = run_child([exe, "-p", "hi"], env, cwd=project)
                ours.append(t)
                our_rss.append(rss)
        b, o = median_of(base), median_of(ours)
        ratio = o / b
        report(
            'python -c "import anthropic" (baseline)',
            f"{b * 1000:.0f} ms, {max(base_rss) // 1024} MB",
            "-",
            True,
        )
        report(
            "agentcli -p hi (fake server)",
            f"{o * 1000:.0f} ms, {max(our_rss) // 1024} MB",
            "",
            True,
        )
        report("  ratio to the import alone", f"{ratio:.2f}x", "<= 1.30x", ratio <= 1.3)
    finally:
        shutil.rmtree(home, ignore_errors=True)
        shutil.rmtree(project, ignore_errors=True)


if __name__ == "__main__":
    main()
