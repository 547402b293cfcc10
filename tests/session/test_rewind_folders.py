"""A rewind that deletes the files the agent created also removes the folders it
created for them, once empty: never a folder that existed at the checkpoint, never
one that still holds something (the person's own file), never outside the project.
"""

from __future__ import annotations

from pathlib import Path

from agentcli.session.checkpoints import SessionCheckpoints
from agentcli.session.rewind import rewind_files
from agentcli.wiring.composition import finish_session
from tests.fakeapi import reply, text, tool_use
from tests.session.rewind_support import make_session_engine, send


def write(path: Path, content: str = "x\n") -> dict:
    return tool_use("Write", {"file_path": str(path), "content": content})


def checkpoints_of(engine) -> SessionCheckpoints:
    assert isinstance(engine.checkpoints, SessionCheckpoints)
    return engine.checkpoints


def folders(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_dir())


async def test_nested_folders_the_agent_made_go_and_older_ones_stay(fake_api, tmp_path):
    project = tmp_path / "project"
    (project / "existing").mkdir(parents=True)  # empty, and there before the agent came
    engine = make_session_engine(fake_api, project)
    fake_api.enqueue(reply(write(project / "early" / "first.py")))
    fake_api.enqueue(reply(text("One file.")))
    await send(engine, "first")
    fake_api.enqueue(
        reply(
            write(project / "early" / "later" / "second.py"),
            write(project / "existing" / "new" / "deeper" / "a.py"),
            write(project / "fresh" / "one" / "b.py"),
        )
    )
    fake_api.enqueue(reply(write(project / "fresh" / "two.py")))
    fake_api.enqueue(reply(text("Four more.")))
    second = await send(engine, "second")

    report = rewind_files(checkpoints_of(engine), second)

    assert len(report.deleted) == 4
    assert folders(project) == ["early", "existing"]
    assert (project / "early" / "first.py").is_file()
    removed = {str(p.relative_to(project)) for p in report.deleted_folders}
    assert removed == {
        "early/later",
        "existing/new",
        "existing/new/deeper",
        "fresh",
        "fresh/one",
    }
    assert "removed the empty folder fresh/one (the agent created it)" in report.lines(
        lambda p: str(p.relative_to(project))
    )
    finish_session(engine)


async def test_a_folder_holding_the_persons_file_stays(fake_api, tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    engine = make_session_engine(fake_api, project)
    fake_api.enqueue(reply(write(project / "made" / "sub" / "a.py")))
    fake_api.enqueue(reply(text("Made it.")))
    prompt = await send(engine, "make a.py")
    (project / "made" / "notes.txt").write_text("mine\n")

    report = rewind_files(checkpoints_of(engine), prompt)

    assert not (project / "made" / "sub").exists()
    assert (project / "made" / "notes.txt").read_text() == "mine\n"
    assert [p.relative_to(project) for p in report.deleted_folders] == [Path("made/sub")]
    finish_session(engine)


async def test_nothing_outside_the_project_is_removed(fake_api, tmp_path):
    """Neither the file the agent wrote outside the project (and its added folders) nor
    the folder it made for it: a rewind changes nothing there (test_rewind_links.py)."""
    project = tmp_path / "project"
    project.mkdir()
    outside = tmp_path / "outside" / "new" / "x.py"
    engine = make_session_engine(fake_api, project)
    fake_api.enqueue(reply(write(outside)))
    fake_api.enqueue(reply(text("Wrote outside.")))
    prompt = await send(engine, "write outside")
    assert outside.is_file()

    report = rewind_files(checkpoints_of(engine), prompt)

    assert report.deleted == [] and outside.is_file()
    assert [path for path, _why in report.not_restored] == [outside]
    assert report.deleted_folders == []
    finish_session(engine)


async def test_a_dry_run_removes_no_folder(fake_api, tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    engine = make_session_engine(fake_api, project)
    fake_api.enqueue(reply(write(project / "made" / "a.py")))
    fake_api.enqueue(reply(text("Made it.")))
    prompt = await send(engine, "make a.py")

    report = rewind_files(checkpoints_of(engine), prompt, dry_run=True)

    assert (project / "made" / "a.py").is_file()
    assert report.deleted_folders == []
    finish_session(engine)
