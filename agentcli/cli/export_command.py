"""`agentcli export --format atif SESSION [-o FILE]`: a saved session for other tools.

SESSION is a session id (or a unique prefix of one: this folder's sessions
first, then any project's, as `--resume ID`) or the path of a transcript
(`.jsonl`). The trajectory goes to FILE, or to stdout. ATIF (session/atif.py)
is the one format: Harbor's, which other evaluation tools read too. Exit
status 0 on success; 1 with one line on stderr otherwise (usage mistakes
included), and FILE is then left as it was.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
from pathlib import Path
from typing import NoReturn

from agentcli.frontends.output_streams import say
from agentcli.session.atif import AtifError, export_file
from agentcli.session.store import find_session

FORMATS = ("atif",)


class _Usage(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise _Usage(message)


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="agentcli export", description="Write a saved session in another format.")
    parser.add_argument("--format", required=True, choices=FORMATS, help="the format (atif)")
    parser.add_argument("session", metavar="SESSION", help="a session id or a transcript's path")
    parser.add_argument("-o", "--output", metavar="FILE", help="write here instead of stdout")
    return parser


def main(argv: list[str]) -> int:
    try:
        args = _parser().parse_args(argv)
    except _Usage as exc:
        say(f"agentcli export: {exc}")
        return 1
    try:
        data = export_file(_transcript(args.session))
        text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
        if args.output is None:
            print(text, end="")
        else:
            _write(Path(args.output), text)
    except AtifError as exc:
        say(f"agentcli export: {exc}")
        return 1
    return 0


def _transcript(session: str) -> Path:
    """The transcript SESSION names: a file that exists, else a session id."""
    path = Path(session).expanduser()
    if path.is_file() or session.endswith(".jsonl") or os.sep in session:
        return path
    found = find_session(Path.cwd(), session)
    if found is None:
        raise AtifError(
            f"no session {session!r} here or in any project; "
            "give its id (`agentcli --resume` lists them) or its transcript's path"
        )
    return found


def _write(path: Path, text: str) -> None:
    """Whole or not at all: a temporary file beside FILE, renamed over it."""
    folder = path.parent if str(path.parent) else Path(".")
    try:
        handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=folder)
    except OSError as exc:
        raise AtifError(f"cannot write {path}: {exc.strerror}") from None
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
        os.replace(temporary, path)
    except OSError as exc:
        Path(temporary).unlink(missing_ok=True)
        raise AtifError(f"cannot write {path}: {exc.strerror}") from None
