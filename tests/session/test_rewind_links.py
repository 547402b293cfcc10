"""A rewind never writes, creates or deletes anything outside the project and its
added folders, whatever became a symbolic link after the agent's edit.

The attack: the agent writes `sub/secret`, then (a shell command, the person, another
program) replaces `sub/` by a link to `../outside`; a rewind that follows the path
deletes or overwrites `outside/secret`. Every file operation of a restore walks from
the root folder by folder, following no link, and a file it cannot reach that way is
refused by name while the rest of the restore still happens.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from agentcli.session.checkpoints import SessionCheckpoints
from agentcli.session.rewind import apply_rewind, plan_rewind, rewind_files
from agentcli.wiring.composition import finish_session
from tests.fakeapi import reply, text, tool_use
from tests.integration.test_headless_cli import agentcli
from tests.session.rewind_support import make_session_engine, send


def write(path: Path, content: str) -> dict:
    return tool_use("Write", {"file_path": str(path), "content": content})


def checkpoints_of(engine) -> SessionCheckpoints:
    assert isinstance(engine.checkpoints, SessionCheckpoints)
    return engine.checkpoints


def snapshot(folder: Path) -> dict[str, object]:
    """Everything under `folder`: each file's bytes, each link's target, each folder."""
    out: dict[str, object] = {}
    for path in sorted(folder.rglob("*")):
        key = str(path.relative_to(folder))
        if path.is_symlink():
            out[key] = ("link", os.readlink(path))
        elif path.is_dir():
            out[key] = "folder"
        else:
            out[key] = (path.read_bytes(), path.stat().st_mode & 0o777)
    return out


@pytest.fixture
def places(tmp_path: Path) -> tuple[Path, Path]:
    project, outside = tmp_path / "project", tmp_path / "outside"
    project.mkdir()
    outside.mkdir()
    return project, outside


def link_folder(folder: Path, target: Path) -> None:
    """`folder` (the agent's) replaced by a link to `target`."""
    for child in folder.iterdir():
        child.unlink()
    folder.rmdir()
    folder.symlink_to(target, target_is_directory=True)


async def one_prompt(fake_api, project: Path, files: dict[str, str]):
    engine = make_session_engine(fake_api, project)
    fake_api.enqueue(reply(*(write(project / name, body) for name, body in files.items())))
    fake_api.enqueue(reply(text("Wrote them.")))
    prompt = await send(engine, "write the files")
    return engine, prompt


async def two_prompts(fake_api, project: Path, name: str):
    """`name` written "one" by the first prompt and "two" by the second."""
    engine = make_session_engine(fake_api, project)
    fake_api.enqueue(reply(write(project / name, "one\n")))
    fake_api.enqueue(reply(text("One.")))
    await send(engine, "first")
    fake_api.enqueue(reply(write(project / name, "two\n"), write(project / "other.py", "x\n")))
    fake_api.enqueue(reply(text("Two.")))
    second = await send(engine, "second")
    return engine, second


@pytest.mark.parametrize("on_conflict", ["refuse", "keep", "overwrite"])
async def test_deleting_through_a_folder_now_linked_outside_is_refused(
    fake_api, places, on_conflict
):
    project, outside = places
    engine, prompt = await one_prompt(fake_api, project, {"sub/secret": "s\n", "keep.py": "k\n"})
    link_folder(project / "sub", Path("../outside"))
    (outside / "secret").write_text("s\n")  # what the agent left: no conflict to stop it
    before = snapshot(outside)

    report = rewind_files(checkpoints_of(engine), prompt, on_conflict=on_conflict)

    assert snapshot(outside) == before
    assert (project / "sub").is_symlink()
    assert [p for p, _ in report.not_restored] == [project / "sub" / "secret"]
    (why,) = [why for _, why in report.not_restored]
    assert "sub" in why and "symbolic link" in why
    assert report.deleted == [project / "keep.py"]  # the rest of the restore happened
    assert not (project / "keep.py").exists()
    line = f"could not restore {project / 'sub' / 'secret'}: {why}"
    assert line in report.lines()
    finish_session(engine)


async def test_deleting_through_a_link_is_refused_even_when_the_content_differs(fake_api, places):
    project, outside = places
    engine, prompt = await one_prompt(fake_api, project, {"sub/secret": "s\n"})
    link_folder(project / "sub", outside)  # an absolute link this time
    (outside / "secret").write_text("the person's own secret\n")
    before = snapshot(outside)

    report = rewind_files(checkpoints_of(engine), prompt, on_conflict="overwrite")

    assert snapshot(outside) == before
    assert report.conflicts == [] and report.deleted == []
    assert [p for p, _ in report.not_restored] == [project / "sub" / "secret"]
    finish_session(engine)


@pytest.mark.parametrize("on_conflict", ["refuse", "overwrite"])
async def test_overwriting_through_a_folder_now_linked_outside_is_refused(
    fake_api, places, on_conflict
):
    project, outside = places
    engine, second = await two_prompts(fake_api, project, "sub/secret")
    link_folder(project / "sub", Path("../outside"))
    (outside / "secret").write_text("two\n")  # what the agent left
    before = snapshot(outside)

    report = rewind_files(checkpoints_of(engine), second, on_conflict=on_conflict)

    assert snapshot(outside) == before
    assert [p for p, _ in report.not_restored] == [project / "sub" / "secret"]
    assert report.restored == [] and report.deleted == [project / "other.py"]
    finish_session(engine)


async def test_a_missing_folder_is_made_again_but_a_linked_one_is_not(fake_api, places):
    """A restore may have to make the file's folders again; through a link it makes none."""
    project, outside = places
    engine, second = await two_prompts(fake_api, project, "deep/er/secret")
    (project / "deep" / "er" / "secret").unlink()
    (project / "deep" / "er").rmdir()
    (project / "deep").rmdir()
    (project / "deep").symlink_to(outside, target_is_directory=True)

    report = rewind_files(checkpoints_of(engine), second, on_conflict="overwrite")

    assert snapshot(outside) == {}  # no "er" folder made there, no file
    assert [p for p, _ in report.not_restored] == [project / "deep" / "er" / "secret"]

    (project / "deep").unlink()  # the link gone: the folders are made again, the file back
    report = rewind_files(checkpoints_of(engine), second, on_conflict="overwrite")
    assert report.restored == [project / "deep" / "er" / "secret"]
    assert (project / "deep" / "er" / "secret").read_text() == "one\n"
    finish_session(engine)


async def test_a_link_that_stays_inside_the_project_is_refused_too(fake_api, places):
    project, _outside = places
    engine, second = await two_prompts(fake_api, project, "sub/secret")
    (project / "elsewhere").mkdir()
    (project / "elsewhere" / "secret").write_text("two\n")
    link_folder(project / "sub", Path("elsewhere"))
    before = snapshot(project / "elsewhere")

    report = rewind_files(checkpoints_of(engine), second)

    assert snapshot(project / "elsewhere") == before
    assert [p for p, _ in report.not_restored] == [project / "sub" / "secret"]
    finish_session(engine)


@pytest.mark.parametrize("prompts", [1, 2])
async def test_the_file_itself_now_a_link_is_left_alone(fake_api, places, prompts):
    project, outside = places
    if prompts == 1:
        engine, prompt = await one_prompt(fake_api, project, {"secret": "two\n"})
    else:
        engine, prompt = await two_prompts(fake_api, project, "secret")
    (outside / "target").write_text("two\n")
    (project / "secret").unlink()
    (project / "secret").symlink_to(outside / "target")
    before = snapshot(outside)

    report = rewind_files(checkpoints_of(engine), prompt, on_conflict="overwrite")

    assert snapshot(outside) == before
    assert os.readlink(project / "secret") == str(outside / "target")
    ((path, why),) = report.not_restored
    assert path == project / "secret" and "symbolic link" in why
    finish_session(engine)


async def test_a_parent_linked_between_the_plan_and_the_restore(fake_api, places):
    """The app asks between plan and restore: what the plan saw is checked again."""
    project, outside = places
    engine, second = await two_prompts(fake_api, project, "sub/secret")
    checkpoints = checkpoints_of(engine)
    plan = plan_rewind(checkpoints, second)
    assert plan.paths == [project / "sub" / "secret", project / "other.py"]
    link_folder(project / "sub", outside)
    (outside / "secret").write_text("two\n")

    report = apply_rewind(checkpoints, plan, on_conflict="overwrite")

    assert (outside / "secret").read_text() == "two\n"
    assert [p for p, _ in report.not_restored] == [project / "sub" / "secret"]
    finish_session(engine)


async def test_an_empty_folder_the_agent_made_is_not_removed_through_a_link(fake_api, places):
    project, outside = places
    engine, prompt = await one_prompt(fake_api, project, {"made/deep/a.py": "a\n"})
    (project / "made" / "deep" / "a.py").unlink()
    (project / "made" / "deep").rmdir()
    (project / "made").rmdir()
    (project / "made").symlink_to(outside, target_is_directory=True)
    (outside / "deep").mkdir()  # an empty folder of the same name, outside

    report = rewind_files(checkpoints_of(engine), prompt)

    assert (outside / "deep").is_dir()
    assert report.deleted_folders == []
    finish_session(engine)


async def test_a_file_outside_the_project_and_its_added_folders_is_not_touched(fake_api, places):
    project, outside = places
    engine = make_session_engine(fake_api, project)
    fake_api.enqueue(reply(write(outside / "new.py", "x\n"), write(project / "in.py", "y\n")))
    fake_api.enqueue(reply(text("Wrote both.")))
    prompt = await send(engine, "write outside")

    report = rewind_files(checkpoints_of(engine), prompt)

    assert (outside / "new.py").read_text() == "x\n"
    ((path, why),) = report.not_restored
    assert path == outside / "new.py" and "outside the project" in why
    assert report.deleted == [project / "in.py"]
    finish_session(engine)


def test_a_file_in_an_added_folder_is_restored(tmp_path):
    project, added = tmp_path / "project", tmp_path / "added"
    project.mkdir()
    (added / "sub").mkdir(parents=True)
    target = added / "sub" / "f.txt"
    target.write_text("before\n")
    checkpoints = SessionCheckpoints(tmp_path / "cp", "s", project=project, extra_dirs=[added])
    checkpoints.begin_prompt("p1", "edit")
    checkpoints.before_write([target])
    target.write_text("after\n")
    checkpoints.after_write([target])

    report = rewind_files(checkpoints, "p1")

    assert report.restored == [target] and target.read_text() == "before\n"


def test_a_recorded_path_that_climbs_out_is_refused(tmp_path):
    """A log line naming `project/sub/../../outside/x` (a log edited by hand, or a bug)
    is judged by its folders, not by its text."""
    project, outside = tmp_path / "project", tmp_path / "outside"
    (project / "sub").mkdir(parents=True)
    outside.mkdir()
    (outside / "x").write_text("keep\n")
    root = tmp_path / "cp"
    root.mkdir()
    climbing = f"{project}/sub/../../outside/x"
    records = [
        {"type": "prompt", "id": "p1", "time": "2025-01-01T00:00:00Z", "text": "t"},
        {"type": "before", "prompt": "p1", "path": climbing, "state": {"exists": False}},
        {"type": "after", "path": climbing, "sha256": "0" * 64},
    ]
    (root / "s.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    checkpoints = SessionCheckpoints(root, "s", project=project)

    report = rewind_files(checkpoints, "p1", on_conflict="overwrite")

    assert (outside / "x").read_text() == "keep\n"
    assert [str(p) for p, _ in report.not_restored] == [climbing]


@pytest.mark.parametrize("prompts", [1, 2])
async def test_the_command_line_rewind_refuses_by_name_and_restores_the_rest(
    fake_api, places, prompts
):
    project, outside = places
    if prompts == 1:
        engine, prompt = await one_prompt(
            fake_api, project, {"sub/secret": "two\n", "other.py": "x\n"}
        )
    else:
        engine, prompt = await two_prompts(fake_api, project, "sub/secret")
    finish_session(engine)
    link_folder(project / "sub", Path("../outside"))
    (outside / "secret").write_text("two\n")
    before = snapshot(outside)

    done = agentcli(["--resume", engine.session_id, "--rewind-to", prompt], project)

    assert snapshot(outside) == before
    assert done.returncode == 1
    lines = done.stdout.splitlines()
    assert "deleted other.py (the agent created it)" in lines
    (refused,) = [line for line in lines if line.startswith("could not restore")]
    assert refused.startswith("could not restore sub/secret: ") and "symbolic link" in refused
    assert "Traceback" not in done.stderr


async def test_the_command_line_rewind_reaches_the_added_folders(fake_api, places):
    project, added = places
    (added / "lib.py").write_text("before\n")
    engine = make_session_engine(fake_api, project)
    fake_api.enqueue(reply(tool_use("Read", {"file_path": str(added / "lib.py")})))
    fake_api.enqueue(reply(write(added / "lib.py", "after\n")))
    fake_api.enqueue(reply(text("Changed it.")))
    prompt = await send(engine, "change lib")
    finish_session(engine)

    refused = agentcli(["--resume", engine.session_id, "--rewind-to", prompt], project)
    assert refused.returncode == 1 and (added / "lib.py").read_text() == "after\n"
    assert "outside the project and its added folders" in refused.stdout

    done = agentcli(
        ["--resume", engine.session_id, "--rewind-to", prompt, "--add-dir", str(added)], project
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert (added / "lib.py").read_text() == "before\n"
