"""Links at protected names, put back after a command that swapped them.

A mount cannot hold a symbolic link itself (it lands on what the link leads
to), so `CLAUDE.md -> AGENTS.md` keeps AGENTS.md read-only but a command could
still remove the link and write a CLAUDE.md of its own. After each command
(when nothing of it runs any more) every kept link is checked; one that has
changed is put back, and what the command left in its place is moved aside,
not deleted, and named in the tool result.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Callable, Sequence
from pathlib import Path

from agentcli.sandbox.aside import LEFT_SUFFIX, free_name
from agentcli.sandbox.survey import KeptLink


def put_back(links: Sequence[KeptLink], aside: Callable[[], Path]) -> list[str]:
    """Restore each changed link; a note for each (for the model and the person)."""
    notes: list[str] = []
    for link in links:
        if _unchanged(link):
            continue
        try:
            kept = _move_aside(link.path, aside) if os.path.lexists(link.path) else None
            os.symlink(link.target, link.path)
        except OSError as error:
            notes.append(
                f"(The command changed {link.path}, a link to {link.target}, and the sandbox "
                f"could not put it back: {error.strerror}. Check it before the next session.)"
            )
            continue
        where = f"; what the command left there is kept in {kept}" if kept else ""
        notes.append(
            f"(The sandbox put back {link.path}, a link to {link.target}, which the command "
            f"had changed{where}.)"
        )
    return notes


def _unchanged(link: KeptLink) -> bool:
    try:
        return os.readlink(link.path) == link.target
    except OSError:
        return False


def _move_aside(path: Path, aside: Callable[[], Path]) -> Path:
    """Into agentcli's folder for the project; next to it when that is on another disk
    (a rename either way: what a command left is never copied, however big)."""
    folder = aside()
    folder.mkdir(parents=True, exist_ok=True)
    try:
        target = free_name(folder / path.name)
        os.rename(path, target)
    except OSError as error:
        if error.errno != errno.EXDEV:
            raise
        target = free_name(path.with_name(path.name + LEFT_SUFFIX))
        os.rename(path, target)
    return target
