"""Benchmarks for the search and read tools, each against its goal.

1. Grep vs. running `rg` directly with the very same command line, on a
   generated corpus of source-like files (> 50 MB): the tool's own overhead
   (spawning through asyncio, judging each path against the permission
   rules, ranking by mtime, formatting) must stay within 10%.
2. Read of the first 2000 lines of a 500 MB file vs. a 1 MB file: reading a
   window must not cost more because the file is big.
3. Glob `**/*.py` over 50,000 files: time per call.

Tool and baseline run alternately, so a burst of load on a shared machine hits
both sides. All data is generated in a temporary folder (deterministically,
from a seed) and removed at the end. Run alone with `python -m bench.tools_bench`.
"""

from __future__ import annotations

import asyncio
import random
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agentcli.core.abort import AbortSignal
from agentcli.permissions.policy import PermissionPolicy
from agentcli.tools.base import Tool, ToolContext, Workspace
from agentcli.tools.glob import GlobTool
from agentcli.tools.grep import GrepInput, GrepTool, build_rg_args
from agentcli.tools.ripgrep import find_rg
from bench.common import report

SEED = 20240601
CORPUS_BYTES = 60 * 1024 * 1024
GLOB_FILES = 50_000
GREP_REPEATS = 15
READ_REPEATS = 9
GLOB_REPEATS = 5

GREP_GOAL_RATIO = 1.10
READ_GOAL_RATIO = 2.0
READ_SLACK_SECONDS = 0.005
GLOB_GOAL_SECONDS = 0.5

# fmt: off
_WORDS = (
    "value", "result", "config", "handler", "request", "response", "buffer", "index",
    "count", "items", "user", "session", "token", "parser", "stream", "cache", "queue",
    "worker", "status", "error", "message", "path", "record", "entry", "table", "column",
    "schema", "client", "server", "update", "delete", "create", "fetch",
)
# fmt: on


# -- data ------------------------------------------------------------------------


def _source_line(rng: random.Random) -> str:
    a, b, c = rng.choice(_WORDS), rng.choice(_WORDS), rng.choice(_WORDS)
    n = rng.randrange(1000)
    shapes = (
        f"def {a}_{b}_{n}(self, {c}):",
        f"    {a} = self.{b}.get({c!r}, {n})",
        f"    if {a} is None or {b} > {n}:",
        f"        raise ValueError(f'bad {a}: {{{b}}}')",
        f"    # TODO({c}): handle {a} when {b} is empty",
        f"    return [{a} for {a} in {b} if {a}.{c}]",
        f"class {a.title()}{b.title()}{n}({c.title()}Base):",
        f"        {a}.append({b}_{n})",
    )
    return shapes[rng.randrange(len(shapes))]


def make_corpus(root: Path, target_bytes: int) -> tuple[int, int]:
    """Many source-like files in nested folders; returns (files, bytes)."""
    rng = random.Random(SEED)
    pool = [_source_line(rng) for _ in range(20_000)]
    # A rare identifier the searches look for, in roughly one file in six.
    rare = [f"    register_needle_{i}(registry)" for i in range(500)]
    written = files = 0
    while written < target_bytes:
        folder = root / f"pkg{files % 40:02}" / f"mod{(files // 40) % 25:02}"
        folder.mkdir(parents=True, exist_ok=True)
        lines = rng.choices(pool, k=rng.randrange(300, 900))
        if rng.random() < 0.17:
            lines.insert(rng.randrange(len(lines)), rng.choice(rare))
        text = "\n".join(lines) + "\n"
        (folder / f"file_{files:05}.py").write_text(text)
        written += len(text)
        files += 1
    return files, written


def make_big_file(path: Path, size: int) -> None:
    rng = random.Random(SEED)
    block = ("\n".join(_source_line(rng) for _ in range(10_000)) + "\n").encode()
    with path.open("wb") as out:
        written = 0
        while written < size:
            chunk = block[: size - written]
            out.write(chunk)
            written += len(chunk)


def make_tree(root: Path, count: int) -> None:
    """`count` empty files, 100 per folder; about five in eight are .py."""
    per_folder = 100
    for start in range(0, count, per_folder):
        folder = root / f"app{start // 5000:02}" / f"pkg{(start // per_folder) % 50:02}"
        folder.mkdir(parents=True, exist_ok=True)
        for j in range(per_folder):
            ext = (".py", ".txt", ".js", ".md")[j % 4] if j % 2 else ".py"
            (folder / f"m{start + j:05}{ext}").touch()


# -- timing ------------------------------------------------------------------------


def paired_medians(a: Callable[[], Any], b: Callable[[], Any], repeats: int) -> tuple[float, float]:
    """Medians of `a` and `b` run alternately (order swapped each round), after a warm-up."""
    a(), b()  # page cache, imports, rg's first start
    samples: tuple[list[float], list[float]] = ([], [])
    for round_ in range(repeats):
        pair = ((0, a), (1, b)) if round_ % 2 == 0 else ((1, b), (0, a))
        for index, fn in pair:
            start = time.perf_counter()
            fn()
            samples[index].append(time.perf_counter() - start)
    return statistics.median(samples[0]), statistics.median(samples[1])


def tool_call(
    runner: asyncio.Runner, tool: Tool, ws: Workspace, raw: dict[str, Any]
) -> Callable[[], Any]:
    """The tool as the engine runs it: with the search filter of a session's policy."""
    inp = tool.input_model.model_validate(raw)
    policy = PermissionPolicy(ws)

    def call() -> Any:
        context = ToolContext(ws, AbortSignal(), search_filter=policy.search_filter(tool.name))
        return runner.run(tool.run(inp, context))

    return call


def process_call(argv: list[str], cwd: Path) -> Callable[[], Any]:
    return lambda: subprocess.run(argv, cwd=cwd, stdin=subprocess.DEVNULL, capture_output=True)


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"


# -- measurements ---------------------------------------------------------------------


def bench_grep(runner: asyncio.Runner, root: Path) -> None:
    ws = Workspace(root)
    rg = find_rg()
    cases = [
        {"pattern": r"register_needle_\d+"},
        {"pattern": r"register_needle_4\d\d", "output_mode": "content", "head_limit": 0},
        {"pattern": r"TODO\(session\)", "output_mode": "count", "-i": True},
    ]
    for raw in cases:
        inp = GrepInput.model_validate(raw)
        direct = process_call([rg, *build_rg_args(inp, ".")], root)
        tool_time, rg_time = paired_medians(
            tool_call(runner, GrepTool(), ws, raw), direct, GREP_REPEATS
        )
        ratio = tool_time / rg_time
        report(
            f"Grep {inp.output_mode} vs rg, same flags",
            f"{ms(tool_time)} / {ms(rg_time)} = {ratio:.2f}x",
            f"<= {GREP_GOAL_RATIO:.2f}x",
            ratio <= GREP_GOAL_RATIO,
        )


def bench_read(runner: asyncio.Runner, tmp: Path) -> None:
    try:
        from agentcli.tools.read import ReadTool
    except ImportError:
        print("   Read: not available yet")
        return
    big, small = tmp / "big.log", tmp / "small.log"
    make_big_file(big, 500 * 2**20)
    make_big_file(small, 2**20)
    ws = Workspace(tmp)
    tool = ReadTool()
    t_big, t_small = paired_medians(
        tool_call(runner, tool, ws, {"file_path": str(big)}),
        tool_call(runner, tool, ws, {"file_path": str(small)}),
        READ_REPEATS,
    )
    report(
        "Read 2000 lines: 500 MB file vs 1 MB file",
        f"{ms(t_big)} / {ms(t_small)} = {t_big / t_small:.2f}x",
        f"<= {READ_GOAL_RATIO:.0f}x + {READ_SLACK_SECONDS * 1000:.0f} ms",
        t_big <= READ_GOAL_RATIO * t_small + READ_SLACK_SECONDS,
    )
    big.unlink()


def bench_glob(runner: asyncio.Runner, root: Path) -> None:
    make_tree(root, GLOB_FILES)
    listing = process_call([find_rg(), "--files", "--hidden", "--glob", "**/*.py"], root)
    glob = tool_call(runner, GlobTool(), Workspace(root), {"pattern": "**/*.py"})
    tool_time, rg_time = paired_medians(glob, listing, GLOB_REPEATS)
    report(
        f"Glob **/*.py over {GLOB_FILES} files, per call",
        f"{ms(tool_time)} (bare rg --files {ms(rg_time)})",
        f"<= {GLOB_GOAL_SECONDS * 1000:.0f} ms",
        tool_time <= GLOB_GOAL_SECONDS,
    )


def main() -> None:
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="agentcli-bench-") as name, asyncio.Runner() as runner:
        tmp = Path(name)
        files, size = make_corpus(tmp / "corpus", CORPUS_BYTES)
        print(f"   corpus: {files} files, {size / 2**20:.0f} MB; medians of {GREP_REPEATS} runs")
        bench_grep(runner, tmp / "corpus")
        bench_read(runner, tmp)
        bench_glob(runner, tmp / "tree")
    print(f"   (tools_bench: {time.perf_counter() - started:.1f} s, temporary data removed)")


if __name__ == "__main__":
    main()
