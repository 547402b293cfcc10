"""Start-up: `--version`/`--help`, and a one-shot `agentcli -p hi` against the fake server.

The baseline for `-p` is a Python script that imports the `anthropic` SDK and
streams one request to the same fake server, measured in the same run: that
is what any Python agent built on the SDK pays. Issue 16's goal is Claude
Code's wall time, which is at most 0.38x of that baseline, with a peak RSS
under 100 MB.

Two more lines put the number in context, both measured in the same run,
interleaved: `curl` sending the very request `-p hi` sent (its body, as the
fake server recorded it) to the same server and reading the stream to its end, a compiled client's floor for the same
work (issue 24: "as fast as a compiled agent"; the ratio is reported, not
judged); and `-p hi` with the compile cache off (`AGENTCLI_COMPILE_CACHE=0`),
so each run shows what the cache still saves (agentcli/cli/compile_cache.py).

And the peer the issue names: Codex (written in Rust), `codex exec hi` against the
fake OpenAI server (the Responses API; its request checks off, since Codex sends
fields of OpenAI's own backend) interleaved with `-p hi` against the fake Messages
API, each doing one streamed request and printing the answer. Goal (issue 24): as
fast as Codex, `<= 1.0x`. `make bench` installs Codex from npm into `.bench-tools/`
when npm is there (AGENTCLI_BENCH_CODEX names another binary); without it the line
says so.
"""

from __future__ import annotations

import glob
import json
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


def curl_request(base_url: str, body: dict[str, object]) -> list[str] | None:
    """curl sending `body` as a streamed Messages request, or None without curl."""
    curl = shutil.which("curl")
    if curl is None:
        return None
    headers = ["x-api-key: bench-key", "anthropic-version: 2023-06-01"]
    headers.append("content-type: application/json")
    return [
        curl,
        *("--silent", "--show-error", "--fail", "--no-buffer", "--output", os.devnull),
        *(argument for header in headers for argument in ("--header", header)),
        *("--data-binary", json.dumps(body), f"{base_url.rstrip('/')}/v1/messages"),
    ]


REPO = Path(__file__).resolve().parents[1]
CODEX_GOAL = 1.0


def codex_binary() -> str | None:
    """Codex's native binary: AGENTCLI_BENCH_CODEX, the one `make bench` installed in
    .bench-tools/ (the binary itself, not npm's Node launcher in front of it), or
    `codex` on PATH."""
    named = os.environ.get("AGENTCLI_BENCH_CODEX")
    if named:
        return named
    pattern = ".bench-tools/node_modules/@openai/codex-linux-*/vendor/*/bin/codex"
    found = sorted(glob.glob(str(REPO / pattern)))
    return found[0] if found else shutil.which("codex")


def codex_exec(codex: str, base_url: str) -> list[str]:
    """`codex exec hi` against `base_url` (a Responses API), no git check, no config of
    the person's own (the bench's CODEX_HOME)."""
    provider = (
        f'model_providers.bench={{name="bench", base_url="{base_url}", '
        'env_key="OPENAI_API_KEY", wire_api="responses"}'
    )
    config = ["-c", 'model_provider="bench"', "-c", provider, "-c", 'model="gpt-5"']
    return [codex, "exec", "--skip-git-repo-check", *config, "hi"]


def against_codex(exe: str, env: dict[str, str], project: str) -> None:
    """`-p hi` beside `codex exec hi`, interleaved, each against its fake server."""
    from tests.fakeapi import FakeAnthropic, reply, text
    from tests.fakeopenai.server import FakeOpenAI

    codex = codex_binary()
    if codex is None:
        print("   codex not found (npm missing?): the comparison with Codex is skipped")
        return
    codex_home = tempfile.mkdtemp(prefix="agentcli-bench-codex-")
    codex_env = dict(env, CODEX_HOME=codex_home, OPENAI_API_KEY="bench-key")
    try:
        with FakeAnthropic() as ours_server, FakeOpenAI(strict=False) as codex_server:
            ours_server.default = codex_server.default = reply(text("Hello!"))
            ours_env = dict(env, ANTHROPIC_BASE_URL=ours_server.base_url)
            argv = codex_exec(codex, codex_server.base_url)
            run_child(argv, codex_env, cwd=project)  # its first-run set-up, not measured
            theirs, ours = [], []
            for _ in range(RUNS):
                theirs.append(run_child(argv, codex_env, cwd=project))
                ours.append(run_child([exe, "-p", "hi"], ours_env, cwd=project))
    finally:
        shutil.rmtree(codex_home, ignore_errors=True)
    c, o = median_of([x.wall_s for x in theirs]), median_of([x.wall_s for x in ours])
    c_cpu, o_cpu = median_of([x.cpu_s for x in theirs]), median_of([x.cpu_s for x in ours])
    report(
        "codex exec hi (Rust; fake Responses API)",
        f"{c * 1000:.0f} ms, CPU {c_cpu * 1000:.0f} ms",
        "-",
        True,
    )
    report("  agentcli -p hi beside it", f"{o * 1000:.0f} ms, CPU {o_cpu * 1000:.0f} ms", "-", True)
    report("  agentcli to Codex", f"{o / c:.2f}x", f"<= {CODEX_GOAL}x", o / c <= CODEX_GOAL)
    report("  the same in CPU time", f"{o_cpu / c_cpu:.2f}x", "-", True)


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
            no_cache = dict(env, AGENTCLI_COMPILE_CACHE="0")
            curl = curl_request(server.base_url, server.requests[-1].body)
            base, ours, uncached, compiled = [], [], [], []
            for _ in range(RUNS):  # alternate so drift hits all alike
                base.append(run_child([sys.executable, "-c", SDK_STREAM], env, cwd=project))
                ours.append(run_child([exe, "-p", "hi"], env, cwd=project))
                uncached.append(run_child([exe, "-p", "hi"], no_cache, cwd=project))
                if curl is not None:
                    compiled.append(run_child(curl, env, cwd=project))
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
        u, u_cpu = median_of([c.wall_s for c in uncached]), median_of([c.cpu_s for c in uncached])
        report(
            "  without the compile cache",
            f"{u * 1000:.0f} ms, CPU {u_cpu * 1000:.0f} ms",
            "-",
            True,
        )
        report(
            "  what the compile cache saves",
            f"{(u - o) * 1000:.0f} ms, CPU {(u_cpu - o_cpu) * 1000:.0f} ms",
            "> 0",
            u_cpu > o_cpu,
        )
        if compiled:
            c, c_cpu = (
                median_of([c.wall_s for c in compiled]),
                median_of([c.cpu_s for c in compiled]),
            )
            report(
                "curl: the same request (a compiled client)",
                f"{c * 1000:.0f} ms, CPU {c_cpu * 1000:.0f} ms",
                "-",
                True,
            )
            report("  agentcli -p hi to curl", f"{o / c:.1f}x, +{(o - c) * 1000:.0f} ms", "-", True)
        else:
            print("   curl not found: the compiled baseline is skipped")
        against_codex(exe, env, project)
    finally:
        shutil.rmtree(home, ignore_errors=True)
        shutil.rmtree(project, ignore_errors=True)


if __name__ == "__main__":
    main()
