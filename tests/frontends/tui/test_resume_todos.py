"""A resumed conversation pins its todo list again: the list of its last TodoWrite
call that succeeded (a call the tool refused changed nothing), with `--continue` as
with `/resume`; a conversation rewound to before the list loses it."""

from __future__ import annotations

from pathlib import Path

from agentcli.frontends.tui.screens.rewind import RewindPicker, RewindQuestion
from agentcli.wiring.bootstrap import Options, build_engine
from agentcli.wiring.composition import finish_session
from tests.engine.scripted import Response, ScriptedProvider, text, tool_use
from tests.frontends.tui.helpers import send, wait_for
from tests.frontends.tui.test_resume import notes, open_app


def todo(content: str, status: str) -> dict[str, str]:
    return {"content": content, "status": status, "activeForm": f"Doing: {content}"}


OLD = [todo("Read the code", "in_progress"), todo("Fix it", "pending")]
LATEST = [todo("Read the code", "completed"), todo("Fix it", "in_progress")]
REFUSED = [{"content": "Bad", "status": "someday", "activeForm": "Being bad"}]


async def record(project: Path) -> str:
    """Two prompts: a list, then a newer list and a call the tool refuses."""
    provider = ScriptedProvider(
        Response([tool_use("TodoWrite", {"todos": OLD})]),
        Response([text("Started.")]),
        Response([tool_use("TodoWrite", {"todos": LATEST})]),
        Response([tool_use("TodoWrite", {"todos": REFUSED})]),
        Response([text("Fixing.")]),
    )
    engine = build_engine(Options(cwd=project), provider)
    for prompt in ("plan it", "go on"):
        async for _event in engine.submit_message(prompt):
            pass
    finish_session(engine)
    assert any(
        b.get("is_error") for m in engine.messages for b in m["content"] if isinstance(b, dict)
    )
    return engine.session_id


def resumed(app) -> bool:
    return any("Resumed conversation" in n for n in notes(app))


def shown(app) -> list[str]:
    return str(app.todo_panel.render()).splitlines()


async def test_continue_pins_the_last_list_the_tool_accepted(tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    await record(project)

    app = open_app(project, "--continue")
    async with app.run_test(size=(100, 40)) as pilot:
        await wait_for(pilot, lambda: resumed(app), "the resumed conversation")
        await pilot.pause()

        assert app.todo_panel.display
        assert shown(app) == ["☒ Read the code", "▶ Doing: Fix it"]


async def test_resume_command_replaces_the_list_on_screen(tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    session_id = await record(project)

    app = open_app(project)
    async with app.run_test(size=(100, 40)) as pilot:
        await wait_for(pilot, lambda: app.engine is not None, "the engine")
        assert not app.todo_panel.display
        await send(pilot, f"/resume {session_id[:8]}")
        await wait_for(pilot, lambda: resumed(app), "the resumed conversation")
        await pilot.pause()

        assert shown(app) == ["☒ Read the code", "▶ Doing: Fix it"]


async def test_rewinding_the_conversation_pins_the_list_it_had_then(tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    await record(project)

    app = open_app(project, "--continue")
    async with app.run_test(size=(100, 40)) as pilot:
        await wait_for(pilot, lambda: resumed(app), "the resumed conversation")
        await send(pilot, "/rewind")
        await wait_for(pilot, lambda: isinstance(app.screen, RewindPicker), "the prompt list")
        await pilot.press("enter")  # the newest prompt: "go on"
        await wait_for(pilot, lambda: isinstance(app.screen, RewindQuestion), "the choices")
        await pilot.press("down", "enter")  # the conversation only
        await wait_for(pilot, lambda: app.prompt.text == "go on", "the prompt back")

        assert shown(app) == ["▶ Doing: Read the code", "☐ Fix it"]
