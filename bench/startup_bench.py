"""Start-up: `--version`/`--help`, and a one-shot `agentcli -p hi` against the fake server.

The baseline for `-p` is a Python script that imports the `anthropic` SDK and
streams one request to the same fake server, measured in the same run: that
is what any Python agent built on the SDK pays. Issue 16's goal is Claude
Code's wall time, which is at most 0.38x of that baseline, with a peak RSS
under 100 MB.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

from bench.common import median_of, report, run_child

RUNS = 5
RATIO_GOAL = 0.38
RSS_GOAL_MB = 100

# The baseline: the SDK's import and one streamed request, read to its end.
SDK_STREAM = """
import anthropic
client = anthropic.Anthropic(max_retries=0)
stream = client.messages.create(
    model="claude-sonnet-5-5", max_tokens=100, stream=True,
    messages=[{"role": "user", "content": "hi"}],
)
for event in stream:
    pass
"""


def agentcli_binary() -> str:
    candidate = Path(sys.executable).with_name("agentcli")
    return str(candidate) if candidate.exists() else shutil.which("agentcli") or "agentcli"


def bench_env(home: str) -> dict[str, str]:
    """The children's environment. Bytecode is written and reused, as in an installed
    agentcli (pip compiles it): without that, an editable install pays for compiling its
    own modules on every run while the SDK's come compiled."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.update(AGENTCLI_HOME=home, ANTHROPIC_API_KEY="bench-key")
    return env


def main() -> None:
    from tests.fakeapi import FakeAnthropic, reply, text

    exe = agentcli_binary()
    home = tempfile.mkdtemp(prefix="agentcli-bench-")
    project = tempfile.mkdtemp(prefix="agentcli-bench-project-")
    env = bench_env(home)
    try:
        for flag in ("--version", "--help"):
            times = [run_child([exe, flag], env)[0] for _ in range(RUNS)]
            ms = median_of(times) * 1000
            report(f"agentcli {flag}", f"{ms:.0f} ms", "<= 100 ms", ms <= 100)

        with FakeAnthropic() as server:
            server.default = reply(text("Hello!"))
            env["ANTHROPIC_BASE_URL"] = server.base_url
            run_child([exe, "-p", "hi"], env, cwd=project)  # writes the bytecode caches
            base, ours = [], []
            for _ in range(RUNS):  # alternate so drift hits both alike
                base.append(run_child([sys.executable, "-c", SDK_STREAM], env, cwd=project))
                ours.append(run_child([exe, "-p", "hi"], env, cwd=project))
        b, o = median_of([c.wall_s for c in base]), median_of([c.wall_s for c in ours])
        b_cpu, o_cpu = median_of([c.cpu_s for c in base]), median_of([c.cpu_s for c in ours])
        ratio, peak_mb = o / b, max(c.rss_kb for c in ours) // 1024
        report(
            "python: import the SDK, stream one request",
            f"{b * 1000:.0f} ms, CPU {b_cpu * 1000:.0f} ms, {max(c.rss_kb for c in base) // 1024} MB",
            "-",
            True,
        )
        report(
            "agentcli -p hi (fake server)",
            f"{o * 1000:.0f} ms, CPU {o_cpu * 1000:.0f} ms",
            "",
            True,
        )
        report(
            "  ratio to the SDK baseline", f"{ratio:.2f}x", f"<= {RATIO_GOAL}x", ratio <= RATIO_GOAL
        )
        report("  the same in CPU time (a busy machine)", f"{o_cpu / b_cpu:.2f}x", "-", True)
        report("  peak RSS", f"{peak_mb} MB", f"< {RSS_GOAL_MB} MB", peak_mb < RSS_GOAL_MB)
    finally:
        shutil.rmtree(home, ignore_errors=True)
        shutil.rmtree(project, ignore_errors=True)


if __name__ == "__main__":
    main()
