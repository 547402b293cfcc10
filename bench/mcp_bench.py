"""MCP servers at start: they must not slow the first frame, and they connect in parallel.

1. The app's first frame ready for typing with three stdio servers configured,
   against the same app with none; runs alternate, medians compared (goal:
   within 1.05x).
2. The manager's start-up of three servers that take different times to
   start (each sleeps first, then runs tests/mcp/server.py), from `start()`
   until all are connected, against the slowest one's own start-up measured
   alone with the SDK's Client (spawn, handshake, listings). Goal: within
   100 ms of it: the servers connect in parallel and the manager adds
   nothing worth seeing.
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from bench.common import report
from bench.ui_bench_frame import find_agentcli, time_to_prompt

REPO = Path(__file__).resolve().parents[1]
RUNS = 9  # the machine is shared: medians of many alternating runs
DELAYS = (0.0, 1.0, 2.0)  # seconds each server waits before it starts
FRAME_GOAL = 1.05
READY_GOAL_S = 0.100


def server_entry(delay: float) -> dict[str, object]:
    command = f"sleep {delay} && exec {sys.executable} -m tests.mcp.server"
    return {"command": "sh", "args": ["-c", command], "env": {"PYTHONPATH": str(REPO)}}


def first_frames() -> None:
    agentcli = find_agentcli()
    if agentcli is None:
        print("   first frame: agentcli is not installed in this environment")
        return
    with tempfile.TemporaryDirectory(prefix="agentcli-mcp-bench-") as tmp:
        project = Path(tmp) / "project"
        project.mkdir()
        homes = {}
        for label, servers in (
            ("none", {}),
            ("three", {f"s{i}": server_entry(d) for i, d in enumerate(DELAYS)}),
        ):
            home = Path(tmp) / label / ".agentcli"
            home.mkdir(parents=True)
            (home / "settings.json").write_text(json.dumps({"mcpServers": servers}))
            homes[label] = home
        base = {**os.environ, "ANTHROPIC_API_KEY": "test", "TERM": "xterm-256color"}
        times: dict[str, list[float]] = {"none": [], "three": []}
        for run in range(RUNS):
            order = list(homes.items())
            for label, home in order if run % 2 else reversed(order):
                seconds = time_to_prompt(
                    [agentcli], {**base, "AGENTCLI_HOME": str(home)}, str(project)
                )
                if seconds is not None:
                    times[label].append(seconds)
    if not times["none"] or not times["three"]:
        print("   first frame: the app never showed its prompt")
        return
    none, three = statistics.median(times["none"]), statistics.median(times["three"])
    ratio = three / none
    report(
        "first frame, three MCP servers vs none",
        f"{three * 1e3:.0f} / {none * 1e3:.0f} ms = {ratio:.2f}x",
        f"<= {FRAME_GOAL}x",
        ratio <= FRAME_GOAL,
    )


async def alone(delay: float) -> float:
    """One server's own start-up: the SDK's Client connects and lists, nothing else."""
    from mcp import Client, StdioServerParameters, stdio_client

    entry = server_entry(delay)
    params = StdioServerParameters(
        command=str(entry["command"]),
        args=list(entry["args"]),
        env=dict(entry["env"]),
        cwd=REPO,  # type: ignore[call-overload]
    )
    started = time.perf_counter()
    with open(os.devnull, "w") as errlog:
        async with Client(stdio_client(params, errlog=errlog), cache=None) as client:
            await client.list_tools()
            await client.list_prompts()
            await client.list_resources()
            elapsed = time.perf_counter() - started
    return elapsed


async def together() -> float:
    from agentcli.mcp.config.servers import ConfiguredServer, McpServers, StdioServer
    from agentcli.mcp.manager import McpManager, load_sdk

    load_sdk()
    configured = {}
    for i, delay in enumerate(DELAYS):
        entry = server_entry(delay)
        spec = StdioServer(command="sh", args=list(entry["args"]), env=dict(entry["env"]))  # type: ignore[call-overload]
        configured[f"s{i}"] = ConfiguredServer(f"s{i}", spec, "user", "bench", True)
    manager = McpManager(
        McpServers(configured, []), startup_timeout_s=30, tool_timeout_s=30, cwd=REPO
    )
    started = time.perf_counter()
    await manager.start()
    await manager.wait_ready()
    elapsed = time.perf_counter() - started
    states = {s.state for s in manager.status()}
    await manager.close()
    if states != {"connected"}:
        raise RuntimeError(f"the servers did not all connect: {manager.status()}")
    return elapsed


def tools_ready() -> None:
    from agentcli.mcp.manager import load_sdk

    load_sdk()
    own = {delay: [] for delay in DELAYS}
    parallel = []
    for _ in range(RUNS):
        for delay in DELAYS:
            own[delay].append(asyncio.run(alone(delay)))
        parallel.append(asyncio.run(together()))
    slowest = max(statistics.median(samples) for samples in own.values())
    ready = statistics.median(parallel)
    report(
        "three servers ready vs the slowest alone",
        f"{ready * 1e3:.0f} / {slowest * 1e3:.0f} ms (+{(ready - slowest) * 1e3:.0f})",
        f"<= +{READY_GOAL_S * 1e3:.0f} ms",
        ready - slowest <= READY_GOAL_S,
    )
    total = sum(statistics.median(samples) for samples in own.values())
    print(f"   (one after the other they would take {total * 1e3:.0f} ms)")


def main() -> None:
    os.chdir(REPO)
    sys.path.insert(0, str(REPO))
    first_frames()
    tools_ready()


if __name__ == "__main__":
    main()
