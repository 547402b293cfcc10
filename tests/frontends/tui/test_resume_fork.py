"""The app on a session another process has open: `--continue` and `/resume ID`
fork it (a note says so) and never write the other process's file."""

from __future__ import annotations

from pathlib import Path

from agentcli.frontends.tui.widgets.conversation import UserMessageView
from agentcli.session.claim import claim_session
from agentcli.session.store import find_session
from tests.engine.scripted import Response, ScriptedProvider, text
from tests.frontends.tui.helpers import idle, send, texts, wait_for
from tests.frontends.tui.test_resume import notes, open_app, record_session


def fork_note(app, original: str) -> str | None:
    wanted = f"session {original} is open in another agentcli process; continuing in a new session "
    return next((n for n in notes(app) if n.startswith(wanted)), None)


async def go_on(pilot, app) -> None:
    app.engine.connect(ScriptedProvider(Response([text("In the fork.")])))
    before = len(app.engine.messages)
    await send(pilot, "and now?")
    await wait_for(pilot, lambda: len(app.engine.messages) == before + 2, "the answer")
    await idle(pilot, app)


async def held_session(project: Path):
    project.mkdir()
    (project / "config.py").write_text("value = 1\n")
    original = await record_session(project, "Change value to 2", "Changed it.")
    path = find_session(project, original)
    return original, path, claim_session(path)  # what another process would hold


async def test_continue_forks_a_session_open_elsewhere(tmp_path):
    original, path, other = await held_session(tmp_path / "project")
    before = path.read_bytes()

    app = open_app(tmp_path / "project", "--continue")
    async with app.run_test(size=(110, 50)) as pilot:
        note = await wait_for(pilot, lambda: fork_note(app, original), "the fork note")
        assert note.endswith(app.engine.session_id) and app.engine.session_id != original
        shown = ["> Change value to 2"]  # drawn an item a frame: waited for
        await wait_for(pilot, lambda: texts(app, UserMessageView) == shown, "the earlier prompt")
        await go_on(pilot, app)

    assert path.read_bytes() == before
    assert path.with_name(f"{app.engine.session_id}.jsonl").exists()
    other.release()


async def test_resume_command_forks_a_session_open_elsewhere(tmp_path):
    original, path, other = await held_session(tmp_path / "project")
    before = path.read_bytes()

    app = open_app(tmp_path / "project")
    async with app.run_test(size=(110, 50)) as pilot:
        await wait_for(pilot, lambda: app.engine is not None, "the engine")
        await send(pilot, f"/resume {original[:8]}")
        await wait_for(pilot, lambda: fork_note(app, original), "the fork note")
        assert app.engine.session_id != original
        await go_on(pilot, app)

    assert path.read_bytes() == before
    other.release()
