"""Streaming markdown: our `StreamingMarkdown` beside Textual's `Markdown.get_stream()`.

Both widgets get the same 200 KB answer in 20-character chunks, inside the same
headless app (an anchored `VerticalScroll`, 120x40), driven the same way: a
batch of chunks (what arrives between two frames), then wait until the widget
has taken all of it in, then one screen refresh (layout and paint of what is
visible). The time of each batch is recorded, so the cost per chunk can be
compared between the start and the end of the message.

A frame takes 100 chunks (2 KB): a fast stream on a busy screen. The frame is
forced with the same private call Textual's Pilot uses (`_on_timer_update`), so
neither widget waits for the 60 fps timer; the frame's cost is counted for both.
"""

from __future__ import annotations

import asyncio
import statistics
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from textual.app import App, ComposeResult
from textual.await_complete import AwaitComplete
from textual.containers import VerticalScroll
from textual.widgets import Markdown

from agentcli.frontends.tui.widgets.streaming_markdown import StreamingMarkdown
from bench.ui_bench_corpus import chunked, make_markdown

MARKDOWN_BYTES = 200 * 1024
CHUNK_CHARS = 20
CHUNKS_PER_FRAME = 100
SIZE = (120, 40)

RATE_GOAL = 5.0
FLATNESS_GOAL = 1.5


@dataclass
class StreamResult:
    name: str
    chunks: int
    total_seconds: float
    batch_seconds: list[float]

    @property
    def rate(self) -> float:
        return self.chunks / self.total_seconds

    def per_chunk(self, start: float, end: float) -> float:
        """Mean seconds per chunk over a slice of the message (fractions 0..1)."""
        batches = self.batch_seconds
        lo, hi = (
            int(len(batches) * start),
            max(int(len(batches) * end), int(len(batches) * start) + 1),
        )
        return statistics.fmean(batches[lo:hi]) / CHUNKS_PER_FRAME

    @property
    def flatness(self) -> float:
        """Time per chunk over the last 10% divided by that over the first 10%."""
        return self.per_chunk(0.9, 1.0) / self.per_chunk(0.0, 0.1)


class _TrackedMarkdown(Markdown):
    """Textual's Markdown, counting the characters whose append has completed.

    Only so the benchmark can wait until the stock stream has caught up; the
    rendering is untouched.
    """

    def __init__(self) -> None:
        super().__init__()
        self.appended = 0

    def append(self, markdown: str) -> AwaitComplete:
        inner = super().append(markdown)

        async def track() -> None:
            await inner
            self.appended += len(markdown)

        return AwaitComplete(track())


class _StreamApp(App[None]):
    def __init__(self, widget: Markdown | StreamingMarkdown) -> None:
        super().__init__()
        self.widget = widget

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="conversation"):
            yield self.widget


async def _drive(
    app: _StreamApp,
    chunks: list[str],
    feed: Callable[[str], Awaitable[None]],
    settle: Callable[[int], Awaitable[None]],
    finish: Callable[[], Awaitable[None]],
) -> tuple[float, list[float]]:
    async with app.run_test(size=SIZE) as pilot:
        app.query_one("#conversation", VerticalScroll).anchor()
        await pilot.pause()
        screen = app.screen
        batches: list[float] = []
        fed = 0
        start = time.perf_counter()
        for index in range(0, len(chunks), CHUNKS_PER_FRAME):
            batch_start = time.perf_counter()
            for chunk in chunks[index : index + CHUNKS_PER_FRAME]:
                await feed(chunk)
                fed += len(chunk)
            await settle(fed)
            screen._on_timer_update()  # one frame: layout and paint (as Pilot does)
            batches.append(time.perf_counter() - batch_start)
        await finish()
        screen._on_timer_update()
        total = time.perf_counter() - start
    return total, batches


async def run_stock(chunks: list[str]) -> StreamResult:
    widget = _TrackedMarkdown()
    app = _StreamApp(widget)
    stream_box: list = []

    async def feed(chunk: str) -> None:
        if not stream_box:
            stream_box.append(Markdown.get_stream(widget))
        await stream_box[0].write(chunk)

    async def settle(fed: int) -> None:
        while widget.appended < fed:
            await asyncio.sleep(0)

    async def finish() -> None:
        await stream_box[0].stop()

    total, batches = await _drive(app, chunks, feed, settle, finish)
    return StreamResult("Markdown.get_stream", len(chunks), total, batches)


async def run_ours(chunks: list[str]) -> StreamResult:
    widget = StreamingMarkdown()
    app = _StreamApp(widget)

    async def feed(chunk: str) -> None:
        widget.append(chunk)

    async def settle(fed: int) -> None:
        await widget.flush()

    total, batches = await _drive(app, chunks, feed, settle, widget.finish)
    return StreamResult("StreamingMarkdown", len(chunks), total, batches)


def run(size: int = MARKDOWN_BYTES) -> tuple[StreamResult, StreamResult]:
    chunks = chunked(make_markdown(size), CHUNK_CHARS)
    ours = asyncio.run(run_ours(chunks))
    stock = asyncio.run(run_stock(chunks))
    return ours, stock


def report(ours: StreamResult, stock: StreamResult) -> list[str]:
    lines = [
        f"streaming {MARKDOWN_BYTES // 1024} KB in {CHUNK_CHARS}-char chunks, {CHUNKS_PER_FRAME} chunks per frame:"
    ]
    for result in (ours, stock):
        lines.append(
            f"  {result.name:<20} {result.rate:8.0f} chunks/s  "
            f"first 10% {result.per_chunk(0, 0.1) * 1e3:6.3f} ms/chunk  "
            f"last 10% {result.per_chunk(0.9, 1.0) * 1e3:6.3f} ms/chunk  "
            f"last/first {result.flatness:5.2f}x"
        )
    ratio = ours.rate / stock.rate
    lines.append(
        f"  rate ratio {ratio:.1f}x (goal >= {RATE_GOAL:.0f}x: {'ok' if ratio >= RATE_GOAL else 'MISSED'}); "
        f"flatness {ours.flatness:.2f}x (goal <= {FLATNESS_GOAL}x: "
        f"{'ok' if ours.flatness <= FLATNESS_GOAL else 'MISSED'})"
    )
    return lines


if __name__ == "__main__":
    import sys

    size = int(sys.argv[1]) if len(sys.argv) > 1 else MARKDOWN_BYTES
    print("\n".join(report(*run(size))))
