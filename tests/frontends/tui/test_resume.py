"""Resuming in the app: `--continue`, `--resume` (picker), `--resume ID`, `/resume`.

The earlier session is recorded for real (bootstrap's engine, the real tools,
the transcript writer), then the app is opened on it the way a person would.
"""

from __future__ import annotations

from pathlib import Path

from agentcli.cli.main import build_parser
from agentcli.frontends.tui.app import AgentApp
from agentcli.frontends.tui.screens.session_picker import SessionPicker
from agentcli.frontends.tui.widgets.conversation import Note, UserMessageView
from agentcli.frontends.tui.widgets.diff_view import DiffView
from agentcli.frontends.tui.widgets.streaming_markdown import StreamingMarkdown
from agentcli.frontends.tui.widgets.tool_pane import ToolPane
from agentcli.wiring.bootstrap import Options, build_engine
from agentcli.wiring.composition import finish_session
from tests.engine.scripted import Response, ScriptedProvider, text, tool_use
from tests.frontends.tui.helpers import idle, send, texts, type_text, wait_for


async def record_session(project: Path, prompt: str, answer: str) -> str:
    """One finished conversation in `project`: Read, Edit, answer. Returns its id."""
    config = project / "config.py"
    edit = {"file_path": str(config), "old_string": "value = 1", "new_string": "value = 2"}
    provider = ScriptedProvider(
        Response([text("Reading."), tool_use("Read", {"file_path": str(config)})]),
        Response([tool_use("Edit", edit)]),
        Response([text(answer)]),
    )
    options = Options(cwd=project, permission_mode="acceptEdits")
    engine = build_engine(options, provider)
    async for _event in engine.submit_message(prompt):
        pass
    finish_session(engine)
    return engine.session_id


def open_app(project: Path, *argv: str) -> AgentApp:
    return AgentApp(build_parser().parse_args(list(argv)), cwd=project, load_provider=False)


def notes(app: AgentApp) -> list[str]:
    return texts(app, Note)


async def resumed_and_drawn(pilot, app: AgentApp) -> None:
    """The resume is done and a short session's every item is on screen (a resumed
    history fills in an item a frame: widgets/conversation.py `load_history`)."""
    await wait_for(pilot, lambda: any("Resumed conversation" in n for n in notes(app)))
    await wait_for(pilot, lambda: app.conversation.hidden_count() == (0, 0), "every item drawn")


async def test_continue_shows_the_earlier_conversation_and_goes_on_from_it(tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    (project / "config.py").write_text("value = 1\n")
    session_id = await record_session(project, "Change value to 2", "Changed it.")

    app = open_app(project, "--continue")
    async with app.run_test(size=(110, 50)) as pilot:
        await resumed_and_drawn(pilot, app)

        assert app.engine.session_id == session_id
        assert texts(app, UserMessageView) == ["> Change value to 2"]
        panes = list(app.conversation.query(ToolPane))
        assert [p.label for p in panes] == ["Read(config.py)", "Edit(config.py)"]
        assert all(p.state == "done" for p in panes)
        assert panes[0].summary == "Read 1 line"
        answers = [w.source for w in app.conversation.query(StreamingMarkdown)]
        assert answers == ["Reading.", "Changed it."]
        assert len(panes[1].query(DiffView)) == 1  # the edit's diff, rebuilt from its input

        provider = ScriptedProvider(Response([text("Still here.")]))
        app.engine.connect(provider)
        await send(pilot, "and now?")
        await idle(pilot, app)

    sent = provider.requests[0].messages
    assert sent[0]["content"][0]["text"] == "Change value to 2"
    assert sent[-1]["content"][-1]["text"] == "and now?"
    assert provider.invalid == []


async def test_a_resumed_session_shows_each_call_as_it_was_shown_live(tmp_path):
    """The transcript keeps each call's display: the edit's diff keeps the file's real
    line numbers (not rebuilt from old_string, which would start at 1), and a command
    keeps its exit code."""
    project = tmp_path / "project"
    project.mkdir()
    config = project / "config.py"
    config.write_text("# settings\nname = 'demo'\ndebug = False\nvalue = 1\nlast = True\n")
    edit = {"file_path": str(config), "old_string": "value = 1", "new_string": "value = 2"}
    provider = ScriptedProvider(
        Response([tool_use("Read", {"file_path": str(config)})]),
        Response([tool_use("Edit", edit), tool_use("Bash", {"command": "exit 3"})]),
        Response([text("Changed it.")]),
    )
    options = Options(cwd=project, permission_mode="bypassPermissions")
    engine = build_engine(options, provider)
    async for _event in engine.submit_message("change it"):
        pass
    finish_session(engine)

    app = open_app(project, "--continue")
    async with app.run_test(size=(110, 50)) as pilot:
        await resumed_and_drawn(pilot, app)
        read, edited, command = list(app.conversation.query(ToolPane))
        assert read.summary == "Read 5 lines"
        assert str(edited.query_one(DiffView).render()).splitlines() == [
            "1   # settings",
            "2   name = 'demo'",
            "3   debug = False",
            "4 - value = 1",
            "4 + value = 2",
            "5   last = True",
        ]
        assert command.summary.startswith("exit 3")


async def test_resume_without_id_opens_a_filterable_picker(tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    (project / "config.py").write_text("value = 1\n")
    await record_session(project, "first task about tests", "Done one.")
    (project / "config.py").write_text("value = 1\n")
    wanted = await record_session(project, "second task about docs", "Done two.")

    app = open_app(project, "--resume")
    async with app.run_test(size=(110, 50)) as pilot:
        picker = await wait_for(pilot, lambda: isinstance(app.screen, SessionPicker) and app.screen)
        assert len(picker.shown) == 2

        await type_text(pilot, "docs")
        await pilot.pause()
        assert [s.id for s in picker.shown] == [wanted]
        await pilot.press("enter")
        await resumed_and_drawn(pilot, app)

        assert app.engine.session_id == wanted
        assert texts(app, UserMessageView) == ["> second task about docs"]


async def test_resume_command_switches_to_the_named_session(tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    (project / "config.py").write_text("value = 1\n")
    earlier = await record_session(project, "the earlier one", "Old answer.")

    app = open_app(project)
    async with app.run_test(size=(110, 50)) as pilot:
        await wait_for(pilot, lambda: app.engine is not None, "the engine")
        await send(pilot, f"/resume {earlier[:8]}")
        await resumed_and_drawn(pilot, app)

        assert app.engine.session_id == earlier
        assert texts(app, UserMessageView) == ["> the earlier one"]


async def test_continue_with_nothing_to_continue_says_so_and_starts_fresh(tmp_path):
    project = tmp_path / "project"
    project.mkdir()

    app = open_app(project, "--continue")
    async with app.run_test(size=(110, 50)) as pilot:
        await wait_for(pilot, lambda: app.engine is not None, "the engine")
        await wait_for(pilot, lambda: any("no earlier conversation" in n for n in notes(app)))
        assert app.engine.messages == []
