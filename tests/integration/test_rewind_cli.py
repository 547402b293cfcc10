"""`agentcli --resume ID --rewind-to PROMPT_ID` as a real subprocess, after a real session."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentcli.wiring.composition import finish_session
from tests.integration.test_headless_cli import agentcli
from tests.session.rewind_support import Session, run_three_prompts


@pytest.fixture
async def session(fake_api, tmp_path: Path) -> Session:
    root = tmp_path / "project"
    root.mkdir()
    done = await run_three_prompts(fake_api, root)
    finish_session(done.engine)
    return done


def test_list_shows_each_prompt_with_its_id_and_files(session):
    listed = agentcli(["--resume", session.engine.session_id, "--rewind-to", "list"], session.root)

    assert listed.returncode == 0, listed.stderr
    lines = listed.stdout.splitlines()
    assert [line.split()[0] for line in lines] == session.prompt_ids
    assert "value 3 and a new file" in lines[1] and "second line" not in lines[1]
    assert lines[1].endswith("(4 files changed since)")
    assert lines[2].endswith("(2 files changed since)")


def test_rewind_to_restores_code_and_says_what_it_did(session):
    prefix = session.prompt_ids[1][:8]

    done = agentcli(["--resume", session.engine.session_id, "--rewind-to", prefix], session.root)

    assert done.returncode == 0, done.stderr
    assert session.files() == session.before_second
    assert sorted(done.stdout.splitlines()) == [
        "deleted new.py (the agent created it)",
        "deleted pkg/c.py (the agent created it)",
        "removed the empty folder pkg (the agent created it)",
        "restored a.py",
        "restored data.bin",
    ]
    assert not (session.root / "pkg").exists()


def test_a_person_changed_file_stops_the_rewind_and_is_named(session):
    (session.root / "a.py").write_text("mine\n")
    before = session.files()

    rewind = ["--rewind-to", session.prompt_ids[1], "--output-format", "json"]
    done = agentcli(["--resume", session.engine.session_id, *rewind], session.root)

    assert done.returncode == 1
    assert session.files() == before
    result = json.loads(done.stdout)
    assert result["conflicts"] == [str(session.root / "a.py")] and result["restored"] == []
    assert "nothing was restored" in done.stderr
    assert "changed since the agent's last edit (by a shell command or by you)" in done.stderr
    assert "you changed" not in done.stderr


def test_bad_input_is_refused_with_a_clear_message(session):
    unknown = agentcli(["--resume", session.engine.session_id, "--rewind-to", "nope"], session.root)
    no_session = agentcli(["--rewind-to", session.prompt_ids[1]], session.root)

    assert unknown.returncode == 1 and "no prompt nope" in unknown.stderr
    assert no_session.returncode == 1 and "--resume ID" in no_session.stderr
    assert session.files()["a.py"] == b"value = 4\n"
