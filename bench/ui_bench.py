"""UI benchmarks, each beside its baseline measured in the same run.

1. Time to the first frame ready for typing: the real `agentcli` binary in a
   pseudo-terminal vs. a minimal Textual app (goal: at most 1.3x).
2. Streaming 200 KB of markdown in 20-character chunks: `StreamingMarkdown` vs.
   Textual's `Markdown.get_stream()` (goals: at least 5x the rate, and the time
   per chunk over the last 10% within 1.5x of the first 10%).

Run alone with `python -m bench.ui_bench` (about two minutes on 2 cores).
"""

from __future__ import annotations

from bench import ui_bench_frame, ui_bench_stream


def main() -> None:
    print("\n".join(ui_bench_frame.report(*ui_bench_frame.run())), flush=True)
    print("\n".join(ui_bench_stream.report(*ui_bench_stream.run())), flush=True)


if __name__ == "__main__":
    main()
