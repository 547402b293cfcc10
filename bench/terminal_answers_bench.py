"""CPU per streamed answer in a real terminal: agentcli beside Claude Code, same answers, same run.

Issue 25: streaming an answer must cost no more CPU than Claude Code spends on
the same answer. Both run as their own binaries in a pseudo-terminal of the
same size (pexpect, 40x120, xterm-256color), against one fake Messages API in
this process (tests/fakeapi, so the server's CPU is not counted), and get the
same prompts and the same ~2 KB markdown answers (live_session_bench's). For
each answer the prompt is typed, Enter pressed, and the answer waited for
until its last line is on the screen and the screen has had SETTLE_S to
finish; the CPU of the app's process (and of any child it waited for) over
that span is the answer's cost. The first WARM answers are not counted. The
two are run in turn, ROUNDS times, so the machine's load falls on both alike.

Claude Code is the binary the `claude-agent-sdk` wheel (a dev dependency)
bundles, run in a scratch HOME whose `.claude.json` has the onboarding, the
folder's trust and the bench's API key already accepted; Claude Code's own
side requests (the session title) are answered with a short text, and count
as part of its cost, as they do for a person. Without that binary the line
comparing the two says it is skipped and agentcli's own figures still print.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.common import report
from bench.live_session_bench import answer_markdown
from bench.long_session_bench import rss_of
from bench.startup_bench import agentcli_binary, bench_env

ANSWERS = int(os.environ.get("AGENTCLI_BENCH_TERMINAL_ANSWERS", "30"))
WARM = 5
ROUNDS = 2
SETTLE_S = 0.3
TYPE_GAP_S = 0.2
SIZE = (40, 120)
TIMEOUT_S = 60.0
API_KEY = "sk-ant-bench-00000000000000000000"
PART = re.compile(r"What did you find in part (\d+)\?")


def end_mark(n: int) -> str:
    """The answer's last line: one word, since a terminal UI may draw spaces as cursor moves."""
    return f"Endoffinding{n}x"


def full_answer(n: int) -> str:
    return f"{answer_markdown(n)}\n{end_mark(n)}\n"


def claude_code_binary() -> str | None:
    """The Claude Code the SDK wheel bundles, if installed."""
    try:
        import claude_agent_sdk
    except ImportError:
        return None
    path = Path(claude_agent_sdk.__file__).parent / "_bundled" / "claude"
    return str(path) if path.exists() else None


def cpu_seconds(pid: int) -> float:
    """User + system CPU of the process and of the children it has waited for."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return sum(int(f) for f in fields[11:15]) / os.sysconf("SC_CLK_TCK")


def responder(body: dict[str, Any]) -> Any:
    """The numbered answer for a prompt of the bench; a short text for anything else
    (Claude Code's title request carries the prompt too, but no tools)."""
    from tests.fakeapi import reply, text

    last = json.dumps(body.get("messages", [])[-1:])
    found = PART.search(last)
    if found and body.get("tools"):
        return reply(text(full_answer(int(found.group(1)))))
    return reply(text("Loader cache findings"))


class Terminal:
    """One app in a pseudo-terminal, its output drained and kept since the last mark."""

    def __init__(self, exe: str, env: dict[str, str], cwd: Path) -> None:
        import pexpect

        self._timeout = pexpect.TIMEOUT
        self.child = pexpect.spawn(exe, [], cwd=str(cwd), env=env, dimensions=SIZE, timeout=30)
        self.seen = b""

    def drain(self, seconds: float) -> None:
        until = time.perf_counter() + seconds
        while time.perf_counter() < until:
            self._read()

    def _read(self) -> None:
        try:
            self.seen += self.child.read_nonblocking(1 << 20, timeout=0.01)
        except self._timeout:
            pass

    def wait_for(self, text: str, what: str) -> None:
        wanted = text.encode()
        deadline = time.perf_counter() + TIMEOUT_S
        while wanted not in self.seen:
            if time.perf_counter() > deadline:
                tail = self.seen[-600:].decode(errors="replace")
                raise RuntimeError(f"{what}: {text!r} never showed; last output: {tail!r}")
            self._read()

    def close(self) -> None:
        self.child.kill(signal.SIGKILL)
        self.child.close(force=True)


def one_app(exe: str, env: dict[str, str], cwd: Path, ready: str) -> dict[str, Any]:
    """Answers ANSWERS prompts in the app; the CPU and wall time of each, and the RSS."""
    term = Terminal(exe, env, cwd)
    cpu: list[float] = []
    wall: list[float] = []
    try:
        term.wait_for(ready, f"{exe} starting")
        term.drain(1.0)  # whatever the app loads after its first frame
        for n in range(ANSWERS):
            before, started = cpu_seconds(term.child.pid), time.perf_counter()
            term.seen = b""
            term.child.send(f"What did you find in part {n}?")
            term.drain(TYPE_GAP_S)
            term.child.send("\r")
            term.wait_for(end_mark(n), f"answer {n}")
            wall.append(time.perf_counter() - started)
            term.drain(SETTLE_S)
            cpu.append(cpu_seconds(term.child.pid) - before)
        return {"cpu": cpu, "wall": wall, "rss": rss_of(term.child.pid)}
    finally:
        term.close()


def claude_home(scratch: Path, project: Path) -> Path:
    """A HOME where Claude Code starts straight at its prompt."""
    home = scratch / "claude-home"
    home.mkdir()
    config = {
        "hasCompletedOnboarding": True,
        "theme": "dark",
        "numStartups": 5,
        "customApiKeyResponses": {"approved": [API_KEY[-20:]], "rejected": []},
        "projects": {
            str(project): {"hasTrustDialogAccepted": True, "hasCompletedProjectOnboarding": True}
        },
    }
    (home / ".claude.json").write_text(json.dumps(config))
    return home


def summary(results: list[dict[str, Any]]) -> tuple[float, float, float]:
    """Mean CPU and median wall per counted answer, and the mean RSS at the end."""
    cpu = [c for r in results for c in r["cpu"][WARM:]]
    wall = [w for r in results for w in r["wall"][WARM:]]
    rss = statistics.fmean(r["rss"] for r in results)
    return statistics.fmean(cpu), statistics.median(wall), rss


def report_app(label: str, results: list[dict[str, Any]]) -> float:
    """Print one app's figures; its mean CPU per answer."""
    cpu, wall, rss = summary(results)
    report(f"{label}: CPU per answer", f"{cpu * 1000:.0f} ms", "-", True)
    report(f"{label}: prompt sent to answer shown", f"{wall * 1000:.0f} ms", "-", True)
    report(f"{label}: RSS after {ANSWERS} answers", f"{rss:.0f} MB", "-", True)
    return cpu


def main() -> None:
    from tests.fakeapi import FakeAnthropic

    scratch = Path(tempfile.mkdtemp(prefix="agentcli-terminal-bench-"))
    project = scratch / "project"
    project.mkdir()
    claude = claude_code_binary()
    before = os.environ.get("AGENTCLI_BENCH_BEFORE")
    runs: dict[str, list[dict[str, Any]]] = {}
    try:
        with FakeAnthropic() as server:
            server.default = responder
            ours = {**bench_env(str(scratch / "agentcli-home")), "TERM": "xterm-256color"}
            ours["ANTHROPIC_BASE_URL"] = server.base_url
            apps = [("agentcli", agentcli_binary(), ours, "model:")]
            if before:  # another checkout (e.g. `git archive` of main), its modules first
                apps.append(("before", agentcli_binary(), {**ours, "PYTHONPATH": before}, "model:"))
            if claude:
                theirs = {
                    **ours,
                    "HOME": str(claude_home(scratch, project)),
                    "ANTHROPIC_API_KEY": API_KEY,
                    "DISABLE_AUTOUPDATER": "1",
                }
                apps.append(("Claude Code", claude, theirs, "for agents"))
            for _ in range(ROUNDS):  # in turn: the machine's load falls on all alike
                for label, exe, env, ready in apps:
                    runs.setdefault(label, []).append(one_app(exe, env, project, ready))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    counted = (ANSWERS - WARM) * ROUNDS
    print(
        f"   {counted} answers counted per app ({ROUNDS} runs of {ANSWERS}, the first {WARM}"
        f" of each not), {len(full_answer(0))} bytes each, {SIZE[1]}x{SIZE[0]} terminal"
    )
    cpu = {label: report_app(label, results) for label, results in runs.items()}
    if "before" in cpu:
        ratio = cpu["agentcli"] / cpu["before"]
        report("agentcli / before, CPU per answer", f"{ratio:.2f}x", "-", True)
    if "Claude Code" not in cpu:
        report(
            "agentcli / Claude Code, CPU per answer", "skipped: no Claude Code binary", "-", True
        )
        return
    ratio = cpu["agentcli"] / cpu["Claude Code"]
    report(
        "agentcli / Claude Code, CPU per answer",
        f"{ratio:.2f}x ({cpu['agentcli'] * 1000:.0f} / {cpu['Claude Code'] * 1000:.0f} ms)",
        "<= 1.0x",
        ratio <= 1.0,
    )


if __name__ == "__main__":
    main()
