"""Putting files back as they were before a prompt: the plan, then the restore.

Every front end rewinds code through here (the app's /rewind screen,
`agentcli --resume ID --rewind-to PROMPT_ID`, the SDK's `rewind_files`):

    plan = plan_rewind(checkpoints, prompt_id)   # what would change, what conflicts
    report = apply_rewind(checkpoints, plan, on_conflict="keep")

or `rewind_files(checkpoints, prompt_id)` for both at once.

A file is part of the plan when the agent changed it after that prompt
(checkpoints.py). It conflicts when what is on disk now is not what the agent
(or an earlier rewind) last left there: the person changed it since, and
their work is not overwritten unless they say so (`on_conflict`). A file the
agent created is deleted, and so are the folders it made for it, once empty
(never one that existed before, nor one outside the project); one it changed
gets its old bytes and permission bits back, written atomically. A file over
10 MB was recorded by hash only: it is left alone and reported, unless it
already holds that content.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from agentcli.config.private_files import write_atomic
from agentcli.session.checkpoint_blobs import FileState, file_hash
from agentcli.session.checkpoints import PromptMark, SessionCheckpoints

OnConflict = Literal["overwrite", "keep", "refuse"]


@dataclass(frozen=True)
class FileChange:
    """One file the agent changed since the prompt, and what a rewind would do."""

    path: Path
    before: FileState  # what to put back
    agent_left: str | None  # hash of what the agent last left there (None: no file)
    current: str | None  # hash of what is there now (None: no file)

    @property
    def conflict(self) -> bool:
        """The person (or something else) changed the file after the agent's last edit."""
        return self.current != self.agent_left

    @property
    def needed(self) -> bool:
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
        """The files a rewind to this prompt would put back."""
        return [c.path for c in self.changes if c.needed]


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
        out += [f"kept your changes to {display(p)}" for p in self.conflicts]
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
    changes = [
        FileChange(path, state, checkpoints.last_written(path), file_hash(path))
        for path, state in checkpoints.states_before(prompt_id).items()
    ]
    return RewindPlan(prompt, changes)


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
        return report
    for change in plan.changes:
        if not change.needed:
            continue
        if change.path in conflicts and on_conflict == "keep":
            report.conflicts.append(change.path)
            continue
        if dry_run:
            _would_restore(checkpoints, change, report)
        else:
            _restore(checkpoints, change, report)
    if not dry_run:
        report.deleted_folders = _remove_new_folders(checkpoints.project, plan, report.deleted)
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


def _restore(checkpoints: SessionCheckpoints, change: FileChange, report: RewindReport) -> None:
    path, before = change.path, change.before
    try:
        if not before.exists:
            path.unlink(missing_ok=True)
            checkpoints.restored(path, None)
            report.deleted.append(path)
            return
        data = checkpoints.read_blob(before)
        if data is None:
            report.not_restored.append((path, _why_not(before)))
            return
        _write(path, data, before.mode)
        checkpoints.restored(path, before.sha256)
        report.restored.append(path)
    except OSError as exc:
        report.not_restored.append((path, exc.strerror or str(exc)))


def _remove_new_folders(project: Path | None, plan: RewindPlan, deleted: list[Path]) -> list[Path]:
    """Remove the folders the agent made for the files just deleted, where they are
    empty now (deepest first); the folders removed."""
    if project is None:
        return []
    made: set[Path] = set()
    for change in plan.changes:
        top = change.before.new_folder
        if change.path not in deleted or top is None or top not in change.path.parents:
            continue
        if top != project and top.is_relative_to(project):
            made.update(f for f in change.path.parents if f.is_relative_to(top))
    removed = []
    for folder in sorted(made, key=lambda f: len(f.parts), reverse=True):
        try:
            folder.rmdir()  # only an empty folder: one the person put a file in stays
        except OSError:
            continue
        removed.append(folder)
    return removed


def _why_not(before: FileState) -> str:
    if not before.stored:
        return "it is over 10 MB, so only its hash was recorded"
    return "its saved copy is missing (pruned?)"


def _write(path: Path, data: bytes, mode: int) -> None:
    """`path` holds `data` with `mode`, all at once (a temp file renamed over it)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, data, mode)
