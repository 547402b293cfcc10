"""Long sessions, once resumed: typing while the resume goes on, and back to the first prompt.

The same sessions as long_session_bench.py (made by the real agent against the
fake API), opened with `agentcli --continue` in a terminal (pexpect):

- key echo: from the first frame on, one character is typed at a time and the
  time until it shows is taken, while the resume is going on (until the
  "Resumed conversation" note shows) and after it; the baseline is the same
  typing into `agentcli` with no session, during its own start-up and after.
  Goal (issue 25): p95 under 50 ms during and after a resume.
- back to the first prompt: once resumed, Ctrl+Home, then the time until the
  session's first prompt is on screen; and PageUp pressed again and again
  (each press once the last one's frame has come) until it is. The baseline is
  Ctrl+Home in a short session. Goal: within a second.

The characters typed are Cyrillic letters, which nothing else on the screen
holds, and each is a different one from the one before it, so its echo cannot
be mistaken for another's. AGENTCLI_BENCH_BEFORE: the key echo of another
checkout too, interleaved (long_session_bench.py `variants`).
"""

from __future__ import annotations

import os
import shutil
import signal
import statistics
import tempfile
import time
from functools import partial
from pathlib import Path
from typing import Any

from bench.common import median_of, report
from bench.long_session_bench import variants
from bench.long_session_build import MESSAGES_PER_PROMPT, fresh_copy, marker, session_for
from bench.startup_bench import agentcli_binary, bench_env

RUNS = 3
ECHO_RUNS = int(os.environ.get("AGENTCLI_BENCH_ECHO_RUNS", "8"))
"""Resumes typed into: a resume lasts a second or so, a dozen keys, so a p95 needs many."""
SIZES = (2000, 10000)
SHORT = 20  # the no-session baseline runs in its folder
SCROLL_BASE = 100  # a few screens: the baseline of going back to the first prompt
ECHO_GOAL_MS = 50.0
TOP_GOAL_S = 1.0
LETTERS = "жщфыюэ"
AFTER_KEYS = 30
TYPE_EVERY_S = 0.02
PLAIN_DURING_S = 1.0
SETTLE_S = 0.5
TIMEOUT_S = 120
FIRST_PROMPT = "ref P00000Q"  # in the session's first prompt only (long_session_build.py)
CTRL_HOME = "\x1b[1;5H"
PAGE_UP = "\x1b[5~"
REPEAT_S = 1 / 30  # a held key's repeat rate
BACK = 5  # prompts PageUp goes back
PAGE_UP_TIMEOUT_S = 30
RESUMED = "Resumed conversation"


class Terminal:
    """The app in a pty, its output kept since the last `mark()`."""

    def __init__(self, exe: str, args: list[str], env: dict[str, str], cwd: Path) -> None:
        import pexpect

        self.started = time.perf_counter()
        self.child = pexpect.spawn(
            exe, args, cwd=str(cwd), env=env, dimensions=(40, 120), timeout=30
        )
        self.seen = b""  # everything, for the notes waited for
        self.since = b""  # since the last mark

    def pump(self, timeout: float = 0.002) -> None:
        import pexpect

        try:
            got = self.child.read_nonblocking(1 << 20, timeout=timeout)
        except pexpect.TIMEOUT:
            return
        self.seen += got
        self.since += got
        if len(self.seen) > 1 << 22:  # only the end is ever searched
            self.seen = self.seen[-(1 << 20) :]

    def pump_for(self, seconds: float) -> None:
        until = time.perf_counter() + seconds
        while time.perf_counter() < until:
            self.pump()

    def mark(self) -> None:
        self.since = b""

    def wait_for(self, text: str, *, since_mark: bool = False) -> float:
        """Seconds until `text` shows (in all the output, or since the mark)."""
        wanted, begun = text.encode(), time.perf_counter()
        while wanted not in (self.since if since_mark else self.seen):
            self.pump()
            if time.perf_counter() - self.started > TIMEOUT_S:
                raise RuntimeError(f"{text!r} never showed")
        return time.perf_counter() - begun

    def echo_ms(self, letter: str) -> float:
        self.mark()
        self.child.send(letter)
        return self.wait_for(letter, since_mark=True) * 1000

    def close(self) -> None:
        self.child.kill(signal.SIGKILL)
        self.child.close(force=True)


def echoes(term: Terminal, until: str | None) -> tuple[list[float], list[float]]:
    """(echo times while the start goes on, echo times after it). Typing starts at the
    first frame (the banner); the start goes on until `until` shows (None: for
    PLAIN_DURING_S, a plain start's own loading of the engine and the provider)."""
    term.wait_for("model:")
    during: list[float] = []
    count = 0
    ends = time.perf_counter() + PLAIN_DURING_S
    while (until.encode() not in term.seen) if until else time.perf_counter() < ends:
        during.append(term.echo_ms(LETTERS[count % len(LETTERS)]))
        count += 1
        term.pump_for(TYPE_EVERY_S)
    term.pump_for(SETTLE_S)
    after = []
    for _ in range(AFTER_KEYS):
        after.append(term.echo_ms(LETTERS[count % len(LETTERS)]))
        count += 1
        term.pump_for(TYPE_EVERY_S)
    return during, after


def p95(samples: list[float]) -> float:
    if len(samples) < 2:
        return samples[0] if samples else 0.0
    return statistics.quantiles(samples, n=20)[-1]


def to_first_prompt(term: Terminal) -> float:
    """Seconds from pressing Ctrl+Home (once resumed) until the first prompt is on
    screen."""
    term.wait_for(RESUMED)
    term.pump_for(SETTLE_S)
    term.mark()
    begun = time.perf_counter()
    term.child.send(CTRL_HOME)
    term.wait_for(FIRST_PROMPT, since_mark=True)
    return time.perf_counter() - begun


def page_up_s(term: Terminal, newest: int) -> float:
    """Seconds PageUp held down (a press every REPEAT_S, as a key repeats) takes to
    bring the answer BACK prompts before the newest on screen, once resumed (inf:
    not within PAGE_UP_TIMEOUT_S)."""
    term.wait_for(RESUMED)
    term.pump_for(SETTLE_S)
    term.mark()
    wanted = marker(newest - BACK).encode()
    begun = time.perf_counter()
    while wanted not in term.since:
        term.child.send(PAGE_UP)
        term.pump_for(REPEAT_S)
        if time.perf_counter() - begun > PAGE_UP_TIMEOUT_S:
            return float("inf")
    return time.perf_counter() - begun


def main() -> None:
    from tests.fakeapi import FakeAnthropic, reply, text

    exe = agentcli_binary()
    scratch = Path(tempfile.mkdtemp(prefix="agentcli-long-keys-bench-"))

    def answer(body: dict[str, Any]) -> Any:
        return reply(text("All right."))

    try:
        with FakeAnthropic() as server:
            server.default = answer
            env = {**bench_env(str(scratch)), "TERM": "xterm-256color"}
            env["ANTHROPIC_BASE_URL"] = server.base_url
            built = {n: session_for(n, env) for n in (SHORT, SCROLL_BASE, *SIZES)}
            _echo(exe, env, built)
            _first_prompt(exe, env, built)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _run(exe: str, env: dict[str, str], place: tuple[Path, Path], args: list[str], job: Any) -> Any:
    project, kept = place
    home = fresh_copy(kept)
    term = Terminal(exe, args, {**env, "AGENTCLI_HOME": str(home)}, project)
    try:
        return job(term)
    finally:
        term.close()
        shutil.rmtree(home, ignore_errors=True)


def _echo(exe: str, env: dict[str, str], built: dict[int, tuple[Path, Path]]) -> None:
    measured = variants(env)
    plain: dict[str, list[float]] = {label: [] for label, _ in measured}
    resumed: dict[tuple[str, int], tuple[list[float], list[float]]] = {
        (label, n): ([], []) for label, _ in measured for n in SIZES
    }
    for run in range(ECHO_RUNS + 1):  # the first round writes the bytecode caches, unmeasured
        for label, base_env in measured:
            # No session: typing during the start-up (until the provider is loaded, when
            # the status bar first shows the context) and after it.
            during, after = _run(exe, base_env, built[SHORT], [], lambda t: echoes(t, None))
            if run:
                plain[label] += during + after
            for n in SIZES:
                args = ["--continue"]
                during, after = _run(exe, base_env, built[n], args, lambda t: echoes(t, RESUMED))
                if run:
                    resumed[(label, n)][0].extend(during)
                    resumed[(label, n)][1].extend(after)
    for label, _ in measured:
        base = p95(plain[label])
        report(
            f"{label}key echo p95, no session (baseline)",
            f"{base:.1f} ms ({len(plain[label])} keys)",
            f"< {ECHO_GOAL_MS:.0f} ms",
            base < ECHO_GOAL_MS,
        )
        for n in SIZES:
            during, after = resumed[(label, n)]
            for part, samples in (("during", during), ("after", after)):
                value = p95(samples)
                report(
                    f"{label}--continue {n:,}: key echo p95 {part} the resume",
                    f"{value:.1f} ms ({len(samples)} keys), {value / base:.2f}x",
                    f"< {ECHO_GOAL_MS:.0f} ms",
                    value < ECHO_GOAL_MS,
                )


def _first_prompt(exe: str, env: dict[str, str], built: dict[int, tuple[Path, Path]]) -> None:
    args = ["--continue"]
    sizes = (SCROLL_BASE, *SIZES)
    home_key: dict[int, list[float]] = {n: [] for n in sizes}
    pages: dict[int, list[float]] = {n: [] for n in sizes}
    for _ in range(RUNS):
        for n in sizes:
            newest = n // MESSAGES_PER_PROMPT - 1
            home_key[n].append(_run(exe, env, built[n], args, to_first_prompt))
            pages[n].append(_run(exe, env, built[n], args, partial(page_up_s, newest=newest)))
    base, base_pages = median_of(home_key[SCROLL_BASE]), median_of(pages[SCROLL_BASE])
    report(
        f"Ctrl+Home to the first prompt, {SCROLL_BASE} messages", f"{base * 1000:.0f} ms", "-", True
    )
    report(
        f"PageUp held, {BACK} prompts back, {SCROLL_BASE} messages",
        f"{base_pages * 1000:.0f} ms",
        "-",
        True,
    )
    for n in SIZES:
        wall = median_of(home_key[n])
        report(
            f"Ctrl+Home to the first prompt, {n:,} messages",
            f"{wall * 1000:.0f} ms, {wall / base:.2f}x",
            f"< {TOP_GOAL_S:.0f} s",
            wall < TOP_GOAL_S,
        )
        paged = median_of(pages[n])
        report(
            f"PageUp held, {BACK} prompts back, {n:,} messages",
            f"{paged * 1000:.0f} ms, {paged / base_pages:.2f}x",
            "-",
            True,
        )


if __name__ == "__main__":
    main()
