"""A long session: 2,000 messages with tool panes in the conversation.

Goals (issue 4): RSS under 300 MB, and a key press in the prompt is on
screen within 50 ms. The session is fed through the same EventsView the
engine's events go through (user message, streamed answer in 20-character
chunks, a tool pane with a diff every other exchange), then key presses are
timed with Pilot: from the press until the prompt shows the character and
the screen has refreshed.
"""

from __future__ import annotations

import asyncio
import resource
import statistics
import tempfile
import time
from pathlib import Path

from bench.common import report

MESSAGES = 2000
RSS_GOAL_MB = 300
KEY_GOAL_MS = 50
PRESSES = 60

ANSWER = (
    "Here is what I found in `src/app.py`:\n\n"
    "- the config is read **once** at start\n- the cache is never cleared\n\n"
    "```python\ndef load(path):\n    return json.loads(path.read_text())\n```\n\n"
    "I'll change the loader so it re-reads the file when it changes.\n"
)


def rss_mb() -> float:
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


async def fill(app, pilot) -> None:
    from agentcli.core.usage import Usage
    from agentcli.engine.events import (
        AssistantMessage,
        TextDelta,
        ToolCallFinished,
        ToolCallRunning,
        ToolCallStarted,
    )

    view = app.view
    diff = {
        "kind": "diff",
        "path": "src/app.py",
        "added": 1,
        "removed": 1,
        "hunks": [
            {
                "old_start": 10,
                "old_lines": 3,
                "new_start": 10,
                "new_lines": 3,
                "lines": [" def load(path):", "-    return cache", "+    return reload(path)"],
            }
        ],
    }
    message = {"role": "assistant", "content": [{"type": "text", "text": ANSWER}]}
    for i in range(MESSAGES // 2):
        app.conversation.add_user(f"Please look at part {i} of the loader and fix it")
        for start in range(0, len(ANSWER), 20):
            await view.show(TextDelta(ANSWER[start : start + 20]))
        await view.show(AssistantMessage(message, Usage(100, 50), "end_turn", "claude-test"))
        if i % 2 == 0:
            tid = f"toolu_{i}"
            await view.show(ToolCallStarted(tid, "Edit", {"file_path": "src/app.py"}, "src/app.py"))
            await view.show(ToolCallRunning(tid, "Edit"))
            result = {"type": "tool_result", "tool_use_id": tid, "content": "ok"}
            await view.show(ToolCallFinished(tid, "Edit", result, False, "done", diff))
        if i % 25 == 0:
            await pilot.pause()
    await pilot.pause()


async def settle(pilot) -> None:
    """Let the last renders and prunes finish before timing key presses."""
    for _ in range(3):
        await pilot.pause()
        await pilot.wait_for_scheduled_animations()


async def time_key_press(app, char: str) -> float:
    """Milliseconds from the key arriving (as the driver posts it) to the first
    screen update after the prompt holds the character."""
    from textual import events

    shown = asyncio.Event()
    before = app.prompt.text
    original = app._display

    def display(screen, renderable):
        original(screen, renderable)
        if app.prompt.text == before + char:
            shown.set()

    app._display = display
    try:
        started = time.perf_counter()
        app.post_message(events.Key(char, char))
        await asyncio.wait_for(shown.wait(), 10)
        return (time.perf_counter() - started) * 1000
    finally:
        app._display = original


async def measure() -> tuple[float, list[float], int, int]:
    from agentcli.frontends.tui.app import AgentApp
    from agentcli.wiring.bootstrap import Options, build_engine

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        engine = build_engine(Options(cwd=root), provider=None)
        app = AgentApp(cwd=root, engine=engine, load_provider=False, remember_theme=False)
        async with app.run_test(size=(120, 40)) as pilot:
            await fill(app, pilot)
            rss = rss_mb()
            await settle(pilot)
            latencies = []
            for n in range(PRESSES):
                latencies.append(await time_key_press(app, "abcdefghij"[n % 10]))
                await pilot.pause()
            mounted = app.conversation.item_count()
            pruned = app.conversation.pruned
        return rss, latencies, mounted, pruned


def main() -> None:
    started = time.perf_counter()
    rss, latencies, mounted, pruned = asyncio.run(measure())
    p50 = statistics.median(latencies)
    p95 = sorted(latencies)[int(len(latencies) * 0.95) - 1]
    print(
        f"   {MESSAGES} messages + {MESSAGES // 4} tool panes fed in "
        f"{time.perf_counter() - started:.1f} s; {mounted} items mounted, {pruned} pruned"
    )
    report("RSS after 2,000 messages", f"{rss:.0f} MB", f"< {RSS_GOAL_MB} MB", rss < RSS_GOAL_MB)
    report(
        "key press to screen (Pilot), p50 / p95",
        f"{p50:.1f} / {p95:.1f} ms",
        f"p95 < {KEY_GOAL_MS} ms",
        p95 < KEY_GOAL_MS,
    )


if __name__ == "__main__":
    main()
