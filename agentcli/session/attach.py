"""Wiring a session into a QueryEngine: transcript, resume, budget, cache, compaction.

`bootstrap.build_engine()` calls `resolve_resumed()` (for `--continue` /
`--resume ID`) before building the engine, and `attach_session()` after, so
the TUI and headless mode persist and resume sessions the same way. A resumed
session is claimed (claim.py): held for this process, or forked when another
one has it open. `start_new_session()` is `/clear`: the same engine parts go
on with a new session id and a new transcript.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from agentcli.config.paths import project_dir
from agentcli.engine.budget import ToolResultBudget
from agentcli.engine.caching import request_shaper
from agentcli.engine.compaction import Compactor
from agentcli.session.claim import claim_session
from agentcli.session.loader import LoadedSession, TranscriptError
from agentcli.session.store import find_session, latest_session
from agentcli.session.writer import TranscriptWriter, transcript_path

if TYPE_CHECKING:
    from agentcli.engine.query_engine import QueryEngine


class SessionNotFound(Exception):
    """`--continue` / `--resume ID` named no session; the message says what to do."""


def resolve_resumed(
    project: Path,
    *,
    continue_latest: bool = False,
    resume_id: str | None = None,
    current_id: str | None = None,
) -> LoadedSession | None:
    """The session to resume, claimed, loaded and repaired (its notices say what was
    fixed, or that it was forked). `current_id`: the session already open here."""
    if resume_id:
        path = find_session(project, resume_id)
        if path is None:
            raise SessionNotFound(
                f"no session {resume_id!r} in {project_dir(project)}; "
                "`agentcli --resume` lists this folder's sessions"
            )
    elif continue_latest:
        latest = latest_session(project)
        if latest is None:
            raise SessionNotFound(f"no earlier conversation to continue in {project}")
        path = latest.path
    else:
        return None
    if path.stem == current_id:
        raise SessionNotFound(f"{current_id} is the conversation you are in")
    try:
        return claim_session(path)
    except TranscriptError as exc:
        raise SessionNotFound(str(exc)) from None


def attach_session(
    engine: QueryEngine,
    *,
    resumed: LoadedSession | None = None,
    persist: bool = True,
    compactor: Compactor | None = None,
) -> TranscriptWriter | None:
    """Give the engine its request shaping, auto-compaction and transcript writer."""
    folder = engine.workspace.scratch_dir or project_dir(engine.workspace.root) / "tool-output"
    engine.prepare_messages = request_shaper(ToolResultBudget(folder))
    (compactor or Compactor()).attach(engine)
    if not persist:
        return None
    writer = _new_writer(engine)
    if resumed is not None:
        writer.resume(resumed)
    engine.listeners.append(writer)
    return writer


def _new_writer(engine: QueryEngine) -> TranscriptWriter:
    return TranscriptWriter(
        transcript_path(engine.workspace.root, engine.session_id),
        session_id=engine.session_id,
        cwd=str(engine.workspace.root),
        model=engine.config.model,
        permission_mode=lambda: engine.gate.policy.mode.value,
    )


def transcript_of(engine: QueryEngine) -> TranscriptWriter | None:
    """The engine's transcript writer, if it has one."""
    return next((x for x in engine.listeners if isinstance(x, TranscriptWriter)), None)


async def start_new_session(engine: QueryEngine, reason: str = "clear") -> list[str]:
    """`/clear`: end this session (SessionEnd hooks, its transcript synced and closed,
    untouched) and go on in a new one on the same engine parts (a new id, no messages,
    totals from zero, a new transcript written with its first message; SessionStart
    hooks). Returns what the hooks and the old transcript had to say."""
    notices = await engine.end_session(reason)
    old = transcript_of(engine)
    if old is not None:
        old.close()
        if old.problem:
            notices.append(old.problem)
    engine.start_over()
    if old is not None:
        writer = _new_writer(engine)
        engine.listeners[engine.listeners.index(old)] = writer
        if engine.hooks is not None:
            engine.hooks.transcript_path = str(writer.path)
    return notices + await engine.start_session(reason)


def resumed_for_headless(options: object) -> LoadedSession | None:
    """`-p` with `--continue` / `--resume ID` (headless cannot show a picker).
    Raises SessionNotFound with the message for stderr."""
    resume = getattr(options, "resume", None)
    if resume == "":
        raise SessionNotFound("--resume needs a session ID with -p (or use --continue)")
    return resolve_resumed(
        options.cwd,  # type: ignore[attr-defined]
        continue_latest=bool(getattr(options, "continue_session", False)),
        resume_id=resume,
    )


def finish_session(engine: QueryEngine) -> str | None:
    """Sync and close the transcript at exit; the problem writing it, if any."""
    writer = transcript_of(engine)
    if writer is None:
        return None
    writer.close()
    return writer.problem
