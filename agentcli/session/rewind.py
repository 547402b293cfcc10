"""Putting files back as they were before a prompt: the plan, then the restore.

Every front end rewinds code through here (the app's /rewind screen,
`agentcli --resume ID --rewind-to PROMPT_ID`, the SDK's `rewind_files`):

    plan = plan_rewind(checkpoints, prompt_id)   # what would change, what conflicts
    report = apply_rewind(checkpoints, plan, on_conflict="keep")

or `rewind_files(checkpoints, prompt_id)` for both at once.

A file is part of the plan when the agent changed it after that prompt
(checkpoints.py). It conflicts when what is on disk now is not what the agent
(or an earlier rewind) last left there: something changed it since, and
their work is not overwritten unless they say so (`on_conflict`). Who made the
change is not known (a shell command the agent ran changes files unrecorded too),
so the words say "changed since (by a shell command or by you)". A file the
agent created is deleted, and so are the folders it made for it, once empty
(never one that existed before, nor one outside the project); one it changed
gets its old bytes and permission bits back, written atomically. A file over
10 MB was recorded by hash only: it is left alone and reported, unless it
already holds that content.

Every file operation of a restore (the write, the delete, the folders made
again or removed) goes through restore_paths.py: it reaches the file from the
project folder or an added folder without following a link, so a folder that
became a link since the agent's edit cannot send it outside. A file that
cannot be reached that way, or lies outside those folders, is left alone and
reported by name; the rest of the restore still happens.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from agentcli.session import restore_paths
from agentcli.session.checkpoint_blobs import FileState
from agentcli.session.checkpoints import PromptMark, SessionCheckpoints
from agentcli.session.restore_paths import Refused, RestoreRoots

OnConflict = Literal["overwrite", "keep", "refuse"]
# A conflict's cause is not known: the agent's own Bash command is as likely as the person.
CHANGED_SINCE = "it changed since the agent's last edit (by a shell command or by you)"


@dataclass(frozen=True)
class FileChange:
    """One file the agent changed since the prompt, and what a rewind would do."""

    path: Path
    before: FileState  # what to put back
    agent_left: str | None  # hash of what the agent last left there (None: no file)
    current: str | None  # hash of what is there now (None: no file)
    refused: str | None = None  # why the file cannot be reached safely (restore_paths.py)

    @property
    def conflict(self) -> bool:
        """The file changed after the agent's last edit (a shell command, the person)."""
        return self.refused is None and self.current != self.agent_left

    @property
    def needed(self) -> bool:
        """To be restored, or reported as refused."""
        if self.refused is not None:
            return True
        return self.current != (self.before.sha256 if self.before.exists else None)


@dataclass(frozen=True)
class RewindPlan:
    prompt: PromptMark
    changes: list[FileChange]

    @property
    def conflicts(self) -> list[Path]:
        return [c.path for c in self.changes if c.needed and c.conflict]

    @property
    def paths(self) -> list[Path]:
        """The files a rewind to this prompt would put back (or report as refused)."""
        return [c.path for c in self.changes if c.needed]

    @property
    def refused(self) -> list[tuple[Path, str]]:
        """The files a rewind cannot reach safely, and why."""
        return [(c.path, c.refused) for c in self.changes if c.refused is not None]


@dataclass
class RewindReport:
    """What a code rewind did: every file it considered is in exactly one list."""

    prompt_id: str
    dry_run: bool = False  # nothing was changed: the lists say what would be
    restored: list[Path] = field(default_factory=list)
    deleted: list[Path] = field(default_factory=list)
    conflicts: list[Path] = field(default_factory=list)  # left as the person had them
    not_restored: list[tuple[Path, str]] = field(default_factory=list)  # and why
    deleted_folders: list[Path] = field(default_factory=list)  # made by the agent, now empty

    @property
    def changed(self) -> bool:
        return bool(self.restored or self.deleted)

    def lines(self, display: Any = str) -> list[str]:
        """The report in words, one line per file; `display` shortens a path."""
        out = [f"restored {display(p)}" for p in self.restored]
        out += [f"deleted {display(p)} (the agent created it)" for p in self.deleted]
        out += [
            f"removed the empty folder {display(p)} (the agent created it)"
            for p in self.deleted_folders
        ]
        out += [f"kept {display(p)} as it is: {CHANGED_SINCE}" for p in self.conflicts]
        out += [f"could not restore {display(p)}: {why}" for p, why in self.not_restored]
        return out or ["no file to restore: the agent changed none since that prompt"]

    def to_json(self) -> dict[str, Any]:
        return {
            "promptId": self.prompt_id,
            "dryRun": self.dry_run,
            "restored": [str(p) for p in self.restored],
            "deleted": [str(p) for p in self.deleted],
            "deletedFolders": [str(p) for p in self.deleted_folders],
            "conflicts": [str(p) for p in self.conflicts],
            "notRestored": [{"path": str(p), "reason": why} for p, why in self.not_restored],
        }


def plan_rewind(checkpoints: SessionCheckpoints, prompt_id: str) -> RewindPlan:
    """What restoring code to before `prompt_id` involves. Raises UnknownPrompt."""
    prompt = checkpoints.prompt(prompt_id)
    roots = checkpoints.restore_roots()
    changes = [
        _change(roots, path, state, checkpoints.last_written(path))
        for path, state in checkpoints.states_before(prompt_id).items()
    ]
    return RewindPlan(prompt, changes)


def _change(roots: RestoreRoots, path: Path, before: FileState, left: str | None) -> FileChange:
    try:
        return FileChange(path, before, left, restore_paths.current_hash(roots, path))
    except Refused as exc:
        return FileChange(path, before, left, None, refused=str(exc))
    except OSError as exc:
        return FileChange(path, before, left, None, refused=exc.strerror or str(exc))


def apply_rewind(
    checkpoints: SessionCheckpoints,
    plan: RewindPlan,
    *,
    on_conflict: OnConflict,
    dry_run: bool = False,
) -> RewindReport:
    """Restore the plan's files. `on_conflict`: overwrite the person's changes too,
    keep those files as they are (restoring the rest), or refuse (change nothing).
    `dry_run`: report what would be done, and change nothing."""
    report = RewindReport(plan.prompt.id, dry_run=dry_run)
    conflicts = set(plan.conflicts)
    if conflicts and on_conflict == "refuse":
        report.conflicts = plan.conflicts
        report.not_restored = plan.refused
        return report
    roots = checkpoints.restore_roots()
    for change in plan.changes:
        if not change.needed:
            continue
        if change.refused is not None:
            report.not_restored.append((change.path, change.refused))
            continue
        if change.path in conflicts and on_conflict == "keep":
            report.conflicts.append(change.path)
            continue
        if dry_run:
            _would_restore(checkpoints, change, report)
        else:
            _restore(checkpoints, roots, change, report)
    if not dry_run:
        report.deleted_folders = _remove_new_folders(roots, plan, report.deleted)
    return report


def rewind_files(
    checkpoints: SessionCheckpoints,
    prompt_id: str,
    *,
    on_conflict: OnConflict = "refuse",
    dry_run: bool = False,
) -> RewindReport:
    """Restore code to before `prompt_id` and say what happened (front ends, the SDK's
    `rewind_files`). By default a conflict leaves every file as it is. Raises
    UnknownPrompt."""
    plan = plan_rewind(checkpoints, prompt_id)
    return apply_rewind(checkpoints, plan, on_conflict=on_conflict, dry_run=dry_run)


def _would_restore(
    checkpoints: SessionCheckpoints, change: FileChange, report: RewindReport
) -> None:
    if not change.before.exists:
        report.deleted.append(change.path)
    elif change.before.stored and checkpoints.has_blob(change.before):
        report.restored.append(change.path)
    else:
        report.not_restored.append((change.path, _why_not(change.before)))


def _restore(
    checkpoints: SessionCheckpoints,
    roots: RestoreRoots,
    change: FileChange,
    report: RewindReport,
) -> None:
    path, before = change.path, change.before
    try:
        if not before.exists:
            restore_paths.delete_file(roots, path)
            checkpoints.restored(path, None)
            report.deleted.append(path)
            return
        data = checkpoints.read_blob(before)
        if data is None:
            report.not_restored.append((path, _why_not(before)))
            return
        restore_paths.write_file(roots, path, data, before.mode)
        checkpoints.restored(path, before.sha256)
        report.restored.append(path)
    except Refused as exc:
        report.not_restored.append((path, str(exc)))
    except OSError as exc:
        report.not_restored.append((path, exc.strerror or str(exc)))


def _remove_new_folders(roots: RestoreRoots, plan: RewindPlan, deleted: list[Path]) -> list[Path]:
    """Remove the folders the agent made for the files just deleted, where they are
    empty now (deepest first); the folders removed. Only below a root, never one."""
    made: set[Path] = set()
    for change in plan.changes:
        top = change.before.new_folder
        if change.path not in deleted or top is None or top not in change.path.parents:
            continue
        if any(top != root and top.is_relative_to(root) for root in roots.folders):
            made.update(f for f in change.path.parents if f.is_relative_to(top))
    removed = []
    for folder in sorted(made, key=lambda f: len(f.parts), reverse=True):
        # only an empty folder: one the person put a file in stays
        if restore_paths.remove_empty_folder(roots, folder):
            removed.append(folder)
    return removed


def _why_not(before: FileState) -> str:
    if not before.stored:
        return "it is over 10 MB, so only its hash was recorded"
    return "its saved copy is missing (pruned?)"
