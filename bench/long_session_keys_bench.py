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
be mistaken for another's.
"""

from __future__ import annotations

import shutil
import signal
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.common import median_of, report
from bench.long_session_build import fresh_copy, session_for
from bench.startup_bench import agentcli_binary, bench_env

RUNS = 3
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
PAGES = 10  # PageUp presses timed, from the newest item up
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

    def pump_until_quiet(self, quiet_s: float = 0.1, most_s: float = 2.0) -> float | None:
        """Read until some output came and then none for `quiet_s` (or `most_s` passed):
        when the last output came (None: none came)."""
        begun = time.perf_counter()
        size, last_change = len(self.since), None
        while time.perf_counter() - begun < most_s:
            self.pump()
            now = time.perf_counter()
            if len(self.since) != size:
                size, last_change = len(self.since), now
            elif last_change is not None and now - last_change >= quiet_s:
                break
        return last_change

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


def page_up_ms(term: Terminal) -> list[float]:
    """Milliseconds from each PageUp (once resumed, from the newest) until its frame has
    been written (the last output before the terminal went quiet)."""
    term.wait_for(RESUMED)
    term.pump_for(SETTLE_S)
    times = []
    for _ in range(PAGES):
        term.mark()
        sent = time.perf_counter()
        term.child.send(PAGE_UP)
        last = term.pump_until_quiet()
        if last is not None:
            times.append((last - sent) * 1000)
    return times


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
    plain_during: list[float] = []
    plain_after: list[float] = []
    resumed: dict[int, tuple[list[float], list[float]]] = {n: ([], []) for n in SIZES}
    for run in range(RUNS + 1):  # the first round writes the bytecode caches, unmeasured
        # No session: typing during the start-up (until the provider is loaded, when
        # the status bar first shows the context) and after it.
        during, after = _run(exe, env, built[SHORT], [], lambda t: echoes(t, None))
        if run:
            plain_during += during
            plain_after += after
        for n in SIZES:
            during, after = _run(exe, env, built[n], ["--continue"], lambda t: echoes(t, RESUMED))
            if run:
                resumed[n][0].extend(during)
                resumed[n][1].extend(after)
    base = p95(plain_during + plain_after)
    report(
        "key echo p95, no session (baseline)",
        f"{base:.1f} ms ({len(plain_after)} keys)",
        f"< {ECHO_GOAL_MS:.0f} ms",
        base < ECHO_GOAL_MS,
    )
    for n in SIZES:
        during, after = resumed[n]
        for label, samples in (("during", during), ("after", after)):
            value = p95(samples)
            report(
                f"--continue {n:,}: key echo p95 {label} the resume",
                f"{value:.1f} ms ({len(samples)} keys), {value / base:.2f}x",
                f"< {ECHO_GOAL_MS:.0f} ms",
                value < ECHO_GOAL_MS,
            )


def _first_prompt(exe: str, env: dict[str, str], built: dict[int, tuple[Path, Path]]) -> None:
    args = ["--continue"]
    base_home: list[float] = []
    base_pages: list[float] = []
    home_key: dict[int, list[float]] = {n: [] for n in SIZES}
    pages: dict[int, list[float]] = {n: [] for n in SIZES}
    for _ in range(RUNS):
        base_home.append(_run(exe, env, built[SCROLL_BASE], args, to_first_prompt))
        base_pages += _run(exe, env, built[SCROLL_BASE], args, page_up_ms)
        for n in SIZES:
            home_key[n].append(_run(exe, env, built[n], args, to_first_prompt))
            pages[n] += _run(exe, env, built[n], args, page_up_ms)
    base, base_page = median_of(base_home), p95(base_pages)
    report(
        f"Ctrl+Home to the first prompt, {SCROLL_BASE} messages", f"{base * 1000:.0f} ms", "-", True
    )
    report(f"PageUp, p95 per page, {SCROLL_BASE} messages", f"{base_page:.0f} ms", "-", True)
    for n in SIZES:
        wall = median_of(home_key[n])
        report(
            f"Ctrl+Home to the first prompt, {n:,} messages",
            f"{wall * 1000:.0f} ms, {wall / base:.2f}x",
            f"< {TOP_GOAL_S:.0f} s",
            wall < TOP_GOAL_S,
        )
        page = p95(pages[n])
        report(
            f"PageUp, p95 per page, {n:,} messages",
            f"{page:.0f} ms, {page / base_page:.2f}x",
            "-",
            True,
        )


if __name__ == "__main__":
    main()
