"""Old checkpoints are pruned at start-up, in the background, after the configured days."""

from __future__ import annotations

import json
import os
import threading
import time

from agentcli.config.paths import agentcli_home
from agentcli.session import checkpoint_prune
from agentcli.session.checkpoints import SessionCheckpoints
from agentcli.session.rewind import rewind_files
from agentcli.wiring.bootstrap import Options, build_engine, settings_for

DAY = 24 * 3600


def age(path, days: float) -> None:
    stamp = time.time() - days * DAY
    os.utime(path, (stamp, stamp))


def session_with_a_change(project, session_id: str, name: str) -> SessionCheckpoints:
    target = project / name
    target.write_text(f"{name} before\n")
    checkpoints = SessionCheckpoints.for_session(project, session_id)
    checkpoints.begin_prompt("p1", "change it")
    checkpoints.before_write([target])
    target.write_text("after\n")
    checkpoints.after_write([target])
    checkpoints.close()
    return checkpoints


def test_logs_and_their_blobs_older_than_the_period_go(tmp_path):
    old = session_with_a_change(tmp_path, "old", "a.txt")
    recent = session_with_a_change(tmp_path, "recent", "b.txt")
    age(old.path, 31)
    for blob in old.blobs.folder.rglob("*"):
        if blob.is_file():
            age(blob, 31)  # b.txt's blob too: still named by the recent log

    pruned = checkpoint_prune.prune_checkpoints(30)

    assert (pruned.logs, pruned.blobs) == (1, 1)
    assert not old.path.exists() and recent.path.exists()
    assert rewind_files(SessionCheckpoints.for_session(tmp_path, "recent"), "p1").restored
    assert (tmp_path / "b.txt").read_text() == "b.txt before\n"


def test_nothing_recent_is_pruned(tmp_path):
    checkpoints = session_with_a_change(tmp_path, "s", "a.txt")

    assert checkpoint_prune.prune_checkpoints(1) == checkpoint_prune.Pruned(0, 0)
    assert checkpoints.path.exists()


def test_start_up_prunes_in_the_background_with_the_setting(tmp_path, monkeypatch):
    settings = agentcli_home() / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(json.dumps({"checkpointRetentionDays": 7}))
    release, asked = threading.Event(), []

    def slow_prune(days: int) -> None:  # released only once build_engine has returned
        released = release.wait(30)
        asked.append((days, threading.current_thread() is threading.main_thread(), released))

    monkeypatch.setattr(checkpoint_prune, "prune_checkpoints", slow_prune)
    monkeypatch.setattr(checkpoint_prune, "_started", threading.Lock())
    monkeypatch.setattr(checkpoint_prune, "START_DELAY_S", 0)
    threads_before = set(threading.enumerate())

    engine = build_engine(Options(cwd=tmp_path), provider=None)  # returns while pruning waits

    (pruning,) = [t for t in set(threading.enumerate()) - threads_before if "prune" in t.name]
    release.set()
    pruning.join(30)
    assert engine is not None and asked == [(7, False, True)]


def test_a_retention_below_one_day_is_a_settings_problem(tmp_path):
    (tmp_path / ".agentcli").mkdir()
    (tmp_path / ".agentcli" / "settings.local.json").write_text('{"checkpointRetentionDays": 0}')

    settings = settings_for(Options(cwd=tmp_path, trusted=True))

    assert settings.checkpoint_retention_days is None
    assert any("checkpointRetentionDays" in p for p in settings.problems)


def test_pruning_waits_until_start_up_is_over(tmp_path, monkeypatch):
    """Reading every log takes turns with start-up for the GIL: it begins only after
    START_DELAY_S, not while the app is still getting ready to send."""
    asked = []
    monkeypatch.setattr(checkpoint_prune, "prune_checkpoints", asked.append)
    monkeypatch.setattr(checkpoint_prune, "_started", threading.Lock())
    monkeypatch.setattr(checkpoint_prune, "START_DELAY_S", 3600)

    before = set(threading.enumerate())  # an earlier test's engine may have one waiting too
    build_engine(Options(cwd=tmp_path), provider=None)

    (pruning,) = [
        t for t in set(threading.enumerate()) - before if t.name == "agentcli-prune-checkpoints"
    ]
    assert pruning.is_alive() and asked == []  # still waiting
    assert isinstance(pruning, threading.Timer) and pruning.daemon
    pruning.cancel()
    pruning.join(30)
    assert asked == []
