"""`agentcli --resume ID --rewind-to PROMPT_ID`: restore code from the command line, then exit.

The files the agent changed since that prompt are put back as they were
just before it (session/rewind.py); the conversation is not touched.
`--rewind-to list` prints the session's prompts with their ids, which is
how a person finds the id to give (the app's /rewind list shows them too).

Nobody can be asked here, so when one of those files changed after the
agent's last edit (by a shell command or by the person), nothing is restored: the files are named and
the exit status is 1 (rewind in the app to decide file by file). Shell
commands' changes are not tracked.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from agentcli.frontends.headless.output import for_stream, report
from agentcli.session.checkpoints import SessionCheckpoints, UnknownPrompt
from agentcli.session.loader import TranscriptError, load_session
from agentcli.session.lock import SessionBusy, open_locked
from agentcli.session.rewind import rewind_files
from agentcli.session.store import find_session, latest_session

EXIT_OK, EXIT_ERROR = 0, 1
LIST = "list"


def main(args: Any, cwd: Path | None = None) -> int:
    project = (cwd or Path.cwd()).resolve()
    path = _session_path(args, project)
    if path is None:
        return EXIT_ERROR
    try:
        forked_from = load_session(path).meta.get("forkedFrom")
    except TranscriptError as exc:
        report(f"error: {exc}")
        return EXIT_ERROR
    checkpoints = SessionCheckpoints.for_session(
        project,
        path.stem,
        forked_from=forked_from if isinstance(forked_from, str) else None,
        extra_dirs=_added_folders(args, project),
    )
    try:
        if args.rewind_to == LIST:
            return _list(checkpoints, args.output_format == "json")
        return _rewind(checkpoints, path, args.rewind_to, args.output_format == "json", project)
    finally:
        checkpoints.close()


def _added_folders(args: Any, project: Path) -> list[Path]:
    """The folders besides the project a rewind may change files in: `--add-dir` and
    the settings' `additionalDirectories`, as a session started here would have them."""
    from agentcli.wiring.bootstrap import Options, settings_for

    settings = settings_for(Options.from_args(args, project))
    return [folder for folder, _source in settings.additional_dirs]


def _session_path(args: Any, project: Path) -> Path | None:
    if args.resume:
        path = find_session(project, args.resume)
        if path is None:
            report(
                f"error: no session {args.resume!r} in this folder; `agentcli --resume` lists them"
            )
        return path
    if args.continue_session:
        latest = latest_session(project)
        if latest is None:
            report(f"error: no earlier conversation in {project}")
        return latest.path if latest is not None else None
    report("error: --rewind-to needs the session: --resume ID (or --continue)")
    return None


def _list(checkpoints: SessionCheckpoints, as_json: bool) -> int:
    rows = [(mark, checkpoints.changed_since(mark.id)) for mark in checkpoints.prompts()]
    if as_json:
        prompts = [
            {
                "id": mark.id,
                "time": mark.time.isoformat(),
                "prompt": mark.text,
                "filesChanged": [str(p) for p in changed],
            }
            for mark, changed in rows
        ]
        print(json.dumps({"prompts": prompts}))
        return EXIT_OK
    if not rows:
        print("no prompts with checkpoints in this session")
    for mark, changed in rows:
        when = mark.time.astimezone().strftime("%Y-%m-%d %H:%M")
        files = f"{len(changed)} file{'s' if len(changed) != 1 else ''} changed since"
        print(for_stream(f"{mark.id}  {when}  {mark.first_line[:60]}  ({files})", sys.stdout))
    return EXIT_OK


def _rewind(
    checkpoints: SessionCheckpoints, transcript: Path, prompt: str, as_json: bool, project: Path
) -> int:
    try:
        lock = open_locked(transcript)  # no other agentcli is working in this session
    except SessionBusy:
        report("error: the session is open in another agentcli process; rewind it there (/rewind)")
        return EXIT_ERROR
    try:
        mark = checkpoints.find(prompt)
        result = rewind_files(checkpoints, mark.id)
    except UnknownPrompt as exc:
        report(f"error: no prompt {exc} in this session; `--rewind-to list` shows them")
        return EXIT_ERROR
    finally:
        lock.close()
    if as_json:
        print(json.dumps(result.to_json()))
    else:
        for line in result.lines(lambda p: _display(p, project)):
            print(for_stream(line, sys.stdout))
    if result.conflicts:
        report(
            "nothing was restored: these files changed since the agent's last edit "
            "(by a shell command or by you); rewind in the app (/rewind) to choose"
        )
    return EXIT_ERROR if result.conflicts or result.not_restored else EXIT_OK


def _display(path: Path, project: Path) -> str:
    return str(path.relative_to(project)) if path.is_relative_to(project) else str(path)
