"""Forgetting old checkpoints: logs and blobs older than the retention period.

Checkpoints hold copies of the person's files, so they must not pile up
forever: shortly after start-up, in a background thread, every project's
checkpoint logs not written for `checkpointRetentionDays` (30 by default) are
deleted, then every blob that no remaining log names and that was not stored
or reused within that period.
A running session's log and blobs are always recent, so they are never
pruned under it. Transcripts are not touched.

The thread waits START_DELAY_S before it begins: reading every log is Python
work that would take turns with the start-up's own (one GIL), and the app is
ready to send in about half a second. A one-shot run shorter than the delay
leaves pruning to the next run.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from agentcli.config.paths import agentcli_home
from agentcli.session.jsonl import json_record

DEFAULT_RETENTION_DAYS = 30
START_DELAY_S = 2.0
_DAY_S = 24 * 3600
_started = threading.Lock()


@dataclass
class Pruned:
    logs: int = 0
    blobs: int = 0


def prune_checkpoints(days: int, *, now: float | None = None, home: Path | None = None) -> Pruned:
    """Delete every project's checkpoints older than `days` days; what went."""
    cutoff = (time.time() if now is None else now) - days * _DAY_S
    pruned = Pruned()
    for folder in ((home or agentcli_home()) / "projects").glob("*/checkpoints"):
        _prune_folder(folder, cutoff, pruned)
    return pruned


def start_pruning(days: int | None) -> threading.Timer | None:
    """Prune in a daemon thread START_DELAY_S from now, once per process; None when it
    already started."""
    if not _started.acquire(blocking=False):
        return None
    thread = threading.Timer(
        START_DELAY_S, _quietly, args=(prune_checkpoints, days or DEFAULT_RETENTION_DAYS)
    )
    thread.name = "agentcli-prune-checkpoints"
    thread.daemon = True
    thread.start()
    return thread


def _quietly(prune: Callable[[int], object], days: int) -> None:
    try:
        prune(days)
    except OSError:  # a folder that vanished or cannot be read: next start tries again
        pass


def _prune_folder(folder: Path, cutoff: float, pruned: Pruned) -> None:
    referenced: set[str] = set()
    for log in folder.glob("*.jsonl"):
        if _mtime(log) < cutoff:
            log.unlink(missing_ok=True)
            pruned.logs += 1
        else:
            referenced |= _blobs_named(log)
    for blob in (folder / "blobs").glob("*/*"):
        if blob.name not in referenced and _mtime(blob) < cutoff:
            blob.unlink(missing_ok=True)
            pruned.blobs += 1


def _blobs_named(log: Path) -> set[str]:
    names: set[str] = set()
    try:
        lines = log.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return names
    for line in lines:
        if '"before"' not in line:
            continue
        record = json_record(line)
        if record is None:
            continue
        state = record.get("state", {})
        if isinstance(state, dict) and isinstance(state.get("sha256"), str):
            names.add(state["sha256"])
    return names


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return float("inf")  # gone or unreadable: nothing to prune
