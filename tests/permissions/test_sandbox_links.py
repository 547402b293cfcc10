"""Putting back a link a sandboxed command swapped: what it left is moved, never lost."""

from __future__ import annotations

import errno
import os
from pathlib import Path

from agentcli.sandbox import links
from agentcli.sandbox.survey import KeptLink


def _swapped(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    project.mkdir()
    (project / "AGENTS.md").write_text("rules\n")
    (project / "CLAUDE.md").write_text("what the command wrote\n")  # the link was here
    return project


def test_a_swapped_link_is_put_back_and_what_was_there_kept(tmp_path):
    project = _swapped(tmp_path)
    aside = tmp_path / "agentcli/displaced"
    notes = links.put_back([KeptLink(project / "CLAUDE.md", "AGENTS.md")], lambda: aside)
    assert os.readlink(project / "CLAUDE.md") == "AGENTS.md"
    assert (aside / "CLAUDE.md").read_text() == "what the command wrote\n"
    assert notes == [
        f"(The sandbox put back {project / 'CLAUDE.md'}, a link to AGENTS.md, which the "
        f"command had changed; what the command left there is kept in {aside / 'CLAUDE.md'}.)"
    ]


def test_on_another_disk_it_is_renamed_beside_the_link_not_copied(tmp_path, monkeypatch):
    project = _swapped(tmp_path)
    aside = tmp_path / "elsewhere"
    rename = os.rename

    def across_disks(source, target):
        if Path(target).is_relative_to(aside):
            raise OSError(errno.EXDEV, "Invalid cross-device link")
        rename(source, target)

    monkeypatch.setattr(links.os, "rename", across_disks)
    notes = links.put_back([KeptLink(project / "CLAUDE.md", "AGENTS.md")], lambda: aside)
    kept = project / "CLAUDE.md.left-by-a-sandboxed-command"
    assert kept.read_text() == "what the command wrote\n" and str(kept) in notes[0]
    assert os.readlink(project / "CLAUDE.md") == "AGENTS.md"


def test_an_unchanged_link_says_nothing(tmp_path):
    project = tmp_path
    (project / "CLAUDE.md").symlink_to("AGENTS.md")
    assert links.put_back([KeptLink(project / "CLAUDE.md", "AGENTS.md")], lambda: tmp_path) == []
