"""Finding the session to resume: `--continue`, `--resume ID`, `/resume ID`.

The session found is claimed (claim.py): held for this process, or forked
when another one has it open. The composition root then builds an engine on
it (wiring/composition.py), whose transcript writer takes the claim over.
"""

from __future__ import annotations

from pathlib import Path

from agentcli.config.paths import project_dir
from agentcli.session.claim import claim_session, fork_session
from agentcli.session.loader import LoadedSession, TranscriptError
from agentcli.session.store import find_session, latest_session_path


class SessionNotFound(Exception):
    """`--continue` / `--resume ID` named no session; the message says what to do."""


def resolve_resumed(
    project: Path,
    *,
    continue_latest: bool = False,
    resume_id: str | None = None,
    current_id: str | None = None,
    fork: bool = False,
    context_only: bool = False,
) -> LoadedSession | None:
    """The session to resume, claimed, loaded and repaired (its notices say what was
    fixed, or that it was forked). `current_id`: the session already open here.
    `fork`: go on in a new session that starts with its history (--fork-session).
    `context_only`: read only what the next request needs, not the history before the
    last compaction (`-p --continue`: nothing shows it, and its totals are per run)."""
    path = resumed_path(
        project, continue_latest=continue_latest, resume_id=resume_id, current_id=current_id
    )
    if path is None:
        return None
    try:
        return fork_session(path) if fork else claim_session(path, context_only=context_only)
    except TranscriptError as exc:
        raise SessionNotFound(str(exc)) from None


def resumed_path(
    project: Path,
    *,
    continue_latest: bool = False,
    resume_id: str | None = None,
    current_id: str | None = None,
) -> Path | None:
    """The transcript `--continue` / `--resume ID` names (None: neither was given)."""
    if resume_id:
        path = find_session(project, resume_id)
        if path is None:
            raise SessionNotFound(
                f"no session {resume_id!r} in {project_dir(project)}; "
                "`agentcli --resume` lists this folder's sessions"
            )
    elif continue_latest:
        latest = latest_session_path(project)
        if latest is None:
            raise SessionNotFound(f"no earlier conversation to continue in {project}")
        path = latest
    else:
        return None
    if path.stem == current_id:
        raise SessionNotFound(f"{current_id} is the conversation you are in")
    return path
