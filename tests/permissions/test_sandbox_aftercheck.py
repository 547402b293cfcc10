"""The look after a sandboxed command, and moving what it made out of the way.

The attack tests (test_attack_sandbox_nested.py) run real commands; these look
at the two parts on their own: the look after a command lists only the folders
that changed, and a move never follows a link another command could have put
on the way, nor fails on a folder the command made read-only.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from agentcli.sandbox import aftercheck, aside
from agentcli.sandbox.survey import WALK_LIMIT, survey


@pytest.fixture
def settled(monkeypatch) -> None:
    """Folders count as unchanged since the look (as they do once a few seconds old)."""
    monkeypatch.setattr(aftercheck, "SETTLE_NS", 0)


def _tree(tmp_path: Path) -> Path:
    root = (tmp_path / "project").resolve()
    for name in ("a/b/c", "d/e", "f"):
        (root / name).mkdir(parents=True)
        (root / name / "file.txt").write_text("x\n")
    (root / "d/AGENTS.md").write_text("the person's\n")
    return root


def _listings(monkeypatch) -> list[str]:
    listed: list[str] = []
    scandir = os.scandir

    def counting(path):
        listed.append(str(path))
        return scandir(path)

    monkeypatch.setattr(aftercheck.os, "scandir", counting)
    return listed


def test_nothing_changed_nothing_listed(tmp_path, monkeypatch, settled):
    root = _tree(tmp_path)
    tree = survey([root], [], []).tree
    listed = _listings(monkeypatch)
    found = aftercheck.new_places(tree, WALK_LIMIT)
    assert found.new == [] and found.complete
    assert listed == []


def test_only_the_folders_that_changed_are_listed(tmp_path, monkeypatch, settled):
    root = _tree(tmp_path)
    tree = survey([root], [], []).tree
    (root / "a/b/new/.claude").mkdir(parents=True)
    (root / "d/e/CLAUDE.md").write_text("made\n")
    os.utime(root / "a/b", (0, 0))  # a time set back does not hide the change
    listed = _listings(monkeypatch)
    found = aftercheck.new_places(tree, WALK_LIMIT)
    assert sorted(found.new) == [str(root / "a/b/new/.claude"), str(root / "d/e/CLAUDE.md")]
    assert sorted(listed) == [str(root / "a/b"), str(root / "a/b/new"), str(root / "d/e")]


def test_a_recently_changed_folder_is_listed_again(tmp_path, monkeypatch):
    """A disk keeps times in steps: a change in the step the look ran in would leave the
    time as it was, so folders changed shortly before the look are not trusted."""
    root = _tree(tmp_path)
    tree = survey([root], [], []).tree
    listed = _listings(monkeypatch)
    aftercheck.new_places(tree, WALK_LIMIT)
    assert str(root / "a/b/c") in listed


def test_what_a_folder_holds_is_judged_again_when_it_is_another_folder(tmp_path, settled):
    root = _tree(tmp_path)
    tree = survey([root], [], []).tree
    os.rename(root / "f", root / "f-old")
    (root / "f/.agentcli").mkdir(parents=True)
    found = aftercheck.new_places(tree, WALK_LIMIT)
    assert found.new == [str(root / "f/.agentcli")]


def test_beyond_the_bound_the_look_says_it_is_incomplete(tmp_path, settled):
    root = _tree(tmp_path)
    tree = survey([root], [], []).tree
    (root / "many").mkdir()
    for n in range(30):
        (root / "many" / str(n)).touch()
    found = aftercheck.new_places(tree, 20)
    assert not found.complete


# --- moving aside --------------------------------------------------------------------------


def test_a_link_on_the_way_is_not_followed(tmp_path):
    """Another command still running could make `sub` a link to the project itself: the
    move must not take the project's own `.claude`."""
    root = tmp_path.resolve()
    (root / ".claude").mkdir()
    (root / "sub").symlink_to(".")
    with pytest.raises(OSError):
        aside.move_aside(str(root), str(root / "sub/.claude"), tmp_path / "aside/.claude")
    assert (root / ".claude").is_dir()
    assert not (tmp_path / "aside/.claude").exists()


def test_a_folder_made_read_only_is_moved_and_keeps_its_mode(tmp_path):
    root = tmp_path.resolve() / "project"
    (root / "sub/.claude").mkdir(parents=True)
    os.chmod(root / "sub/.claude", 0o555)
    os.chmod(root / "sub", 0o555)
    target = tmp_path / "aside/sub/.claude"
    where = aside.move_aside(str(root), str(root / "sub/.claude"), target)
    assert where == target and target.is_dir()
    assert not (root / "sub/.claude").exists()
    assert oct(target.stat().st_mode & 0o777) == oct(0o555)
    assert oct((root / "sub").stat().st_mode & 0o777) == oct(0o555)


def test_a_name_taken_in_the_aside_folder_is_not_overwritten(tmp_path):
    root = tmp_path.resolve() / "project"
    (root / "sub").mkdir(parents=True)
    (root / "sub/CLAUDE.md").write_text("second\n")
    target = tmp_path / "aside/sub/CLAUDE.md"
    target.parent.mkdir(parents=True)
    target.write_text("first\n")
    where = aside.move_aside(str(root), str(root / "sub/CLAUDE.md"), target)
    assert where == target.with_name("CLAUDE.md.2") and where.read_text() == "second\n"
    assert target.read_text() == "first\n"


def test_on_another_disk_it_is_renamed_beside_itself(tmp_path, monkeypatch):
    root = tmp_path.resolve() / "project"
    (root / "sub/.git").mkdir(parents=True)
    rename = os.rename

    def across_disks(source, target, **fds):
        if fds.get("dst_dir_fd") is None:
            raise OSError(errno.EXDEV, "Invalid cross-device link")
        rename(source, target, **fds)

    monkeypatch.setattr(aside.os, "rename", across_disks)
    where = aside.move_aside(str(root), str(root / "sub/.git"), tmp_path / "aside/sub/.git")
    assert where == root / "sub/.git.left-by-a-sandboxed-command" and where.is_dir()
    assert not (root / "sub/.git").exists()
