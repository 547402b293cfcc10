"""`/clear` in the app: a new session (new id, new transcript), the old one closed
untouched, totals from zero, SessionEnd/SessionStart hooks with `clear`."""

from __future__ import annotations

import json
from pathlib import Path

from agentcli.config.trust import remember
from agentcli.core.usage import Usage
from agentcli.frontends.tui.widgets.conversation import UserMessageView
from agentcli.session.store import list_sessions
from agentcli.session.writer import transcript_path
from tests.engine.scripted import Response, ScriptedProvider, text
from tests.frontends.tui.helpers import idle, send, texts, wait_for
from tests.frontends.tui.test_resume import open_app, resumed_and_drawn
from tests.hooks.helpers import hook_script, payloads

BIG = Usage(input_tokens=20_000, output_tokens=1_000, cache_read_input_tokens=30_000)


def status(app) -> str:
    return str(app.status_bar.render())


def message_texts(path: Path) -> list[str]:
    found = []
    for line in path.read_text().splitlines():
        record = json.loads(line)
        if record["type"] in ("user", "assistant"):
            content = record["message"]["content"]
            found.append(content if isinstance(content, str) else content[0]["text"])
    return found


async def talk(pilot, app, prompt: str) -> None:
    """Send a prompt and wait for its answer (one request, no tools)."""
    before = len(app.engine.messages)
    await send(pilot, prompt)
    await wait_for(pilot, lambda: len(app.engine.messages) == before + 2, "the answer")
    await idle(pilot, app)


async def test_clear_starts_a_new_session_that_continue_then_opens(tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    provider = ScriptedProvider(
        Response([text("One.")], usage=BIG), Response([text("Two.")], usage=Usage(300, 20))
    )
    app = open_app(project)
    async with app.run_test(size=(110, 50)) as pilot:
        await wait_for(pilot, lambda: app.engine is not None, "the engine")
        app.engine.connect(provider)
        await talk(pilot, app, "first question")
        old_id, old_path = app.engine.session_id, app.engine.transcript.path
        assert "context 50.0k (25%)" in status(app) and "$0.08" in status(app)

        await send(pilot, "/clear")
        await wait_for(pilot, lambda: app.engine.session_id != old_id, "a new session")
        old_bytes = old_path.read_bytes()
        assert texts(app, UserMessageView) == []
        assert app.engine.messages == []
        assert "context 0 (0%)" in status(app) and "$0.00" in status(app)

        await talk(pilot, app, "second question")
        new_id, new_path = app.engine.session_id, app.engine.transcript.path

    assert old_path.read_bytes() == old_bytes
    assert message_texts(old_path) == ["first question", "One."]
    assert new_path != old_path and new_path.stem == new_id
    assert message_texts(new_path) == ["second question", "Two."]
    (only,) = provider.requests[1].messages
    assert [b["text"] for b in only["content"]] == ["second question"]

    again = open_app(project, "--continue")
    async with again.run_test(size=(110, 50)) as pilot:
        await resumed_and_drawn(pilot, again)
        assert again.engine.session_id == new_id
        assert texts(again, UserMessageView) == ["> second question"]


async def test_clear_then_quit_leaves_continue_on_the_old_session_under_its_own_id(tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    app = open_app(project)
    async with app.run_test(size=(110, 50)) as pilot:
        await wait_for(pilot, lambda: app.engine is not None, "the engine")
        app.engine.connect(ScriptedProvider(Response([text("One.")])))
        await talk(pilot, app, "first question")
        old_id = app.engine.session_id
        await send(pilot, "/clear")
        await wait_for(pilot, lambda: app.engine.session_id != old_id, "a new session")
        new_id = app.engine.session_id

    assert [s.id for s in list_sessions(project)] == [old_id]
    assert not transcript_path(project, new_id).exists()  # nothing sent, no file
    again = open_app(project, "--continue")
    async with again.run_test(size=(110, 50)) as pilot:
        await resumed_and_drawn(pilot, again)
        assert again.engine.session_id == old_id != new_id
        assert texts(again, UserMessageView) == ["> first question"]


async def test_clear_fires_session_end_and_session_start_hooks(tmp_path):
    project = tmp_path / "project"
    (project / ".agentcli").mkdir(parents=True)
    hooks_dir = tmp_path / "hooks"
    hooks_dir.mkdir()
    hooks = {
        event: [{"hooks": [{"type": "command", "command": hook_script(hooks_dir, event)}]}]
        for event in ("SessionStart", "SessionEnd")
    }
    (project / ".agentcli" / "settings.json").write_text(json.dumps({"hooks": hooks}))
    remember(project, True)  # a project's hooks run in a folder the person trusts
    app = open_app(project)
    async with app.run_test(size=(110, 50)) as pilot:
        await wait_for(pilot, lambda: app.engine is not None, "the engine")
        app.engine.connect(ScriptedProvider(Response([text("One.")]), Response([text("Two.")])))
        await talk(pilot, app, "first question")
        old_id, old_path = app.engine.session_id, app.engine.transcript.path
        await send(pilot, "/clear")
        await wait_for(pilot, lambda: app.engine.session_id != old_id, "a new session")
        new_id = app.engine.session_id
        await talk(pilot, app, "second question")
        new_path = app.engine.transcript.path

    (ended,) = [p for p in payloads(hooks_dir, "SessionEnd") if p["reason"] == "clear"]
    assert ended["session_id"] == old_id and ended["transcript_path"] == str(old_path)
    (started,) = [p for p in payloads(hooks_dir, "SessionStart") if p["source"] == "clear"]
    assert started["session_id"] == new_id and started["transcript_path"] == str(new_path)
