"""Esc interrupts, Ctrl+C / Ctrl+D, Shift+Tab modes."""

from __future__ import annotations

from agentcli.core.messages import INTERRUPT_MARKER
from agentcli.frontends.tui.events_view import INTERRUPTED_TEXT
from agentcli.permissions.types import PermissionMode
from agentcli.tools.registry import builtin_tools
from tests.engine.scripted import Response, ScriptedProvider, text, tool_use
from tests.frontends.tui.helpers import idle, make_app, question_ready, send, type_text, wait_for


def notes(app) -> list[str]:
    return [str(n.render()) for n in app.conversation.query(".note")]


def all_text(messages: list[dict]) -> str:
    return repr(messages)


async def test_escape_during_the_stream_stops_it_and_the_next_turn_works(tmp_path):
    provider = ScriptedProvider(
        Response([text("Partial answer here"), text("never")], hang_after_blocks=1),
        Response([text("Second answer.")]),
    )
    app = make_app(provider, tmp_path)
    async with app.run_test() as pilot:
        await send(pilot, "start")
        await wait_for(pilot, lambda: app.conversation.answer is not None, "the stream")
        assert "esc to interrupt" in str(app.status_line.render())
        await pilot.press("escape")
        await idle(pilot, app)
        assert INTERRUPTED_TEXT in notes(app)
        assert INTERRUPT_MARKER in all_text(app.engine.messages)
        await send(pilot, "continue")
        await idle(pilot, app)
        assert app.conversation.last_answer_source == "Second answer."
        assert provider.invalid == []


async def test_escape_during_a_running_command_kills_it_and_the_next_turn_works(tmp_path):
    bash = builtin_tools().get("Bash")
    provider = ScriptedProvider(
        Response([tool_use("Bash", {"command": "echo started; sleep 60"}, "toolu_sleep")]),
        Response([text("After the interrupt.")]),
    )
    app = make_app(provider, tmp_path, [bash])
    async with app.run_test() as pilot:
        await send(pilot, "run it")
        pane = await wait_for(pilot, lambda: app.conversation.pane("toolu_sleep"), "the pane")
        await wait_for(pilot, lambda: "started" in str(pane._body.render()), "live output")
        await pilot.press("escape")
        await idle(pilot, app)
        assert pane.state == "interrupted"
        await send(pilot, "what now")
        await idle(pilot, app)
        assert app.conversation.last_answer_source == "After the interrupt."
        assert provider.invalid == []


async def test_escape_with_nothing_running_is_harmless(tmp_path):
    provider = ScriptedProvider(Response([text("fine")]))
    app = make_app(provider, tmp_path)
    async with app.run_test() as pilot:
        await type_text(pilot, "keep me")
        await pilot.press("escape")
        await pilot.pause()
        assert app.prompt.text == "keep me" and app.is_running
        await pilot.press("enter")
        await idle(pilot, app)
        assert app.conversation.last_answer_source == "fine"


async def test_escape_at_a_permission_question_interrupts_the_turn(tmp_path):
    from tests.engine.scripted import Probe, make_tool

    probe = Probe()
    provider = ScriptedProvider(
        Response(
            [
                tool_use("Poke", {"value": "1"}, "toolu_1"),
                tool_use("Poke", {"value": "2"}, "toolu_2"),
            ]
        ),
        Response([text("ok")]),
    )
    app = make_app(
        provider, tmp_path, [make_tool("Poke", probe, safe=False)], mode=PermissionMode.DEFAULT
    )
    async with app.run_test(size=(100, 40)) as pilot:
        await send(pilot, "poke")
        await wait_for(pilot, lambda: question_ready(app), "the prompt")
        await pilot.press("escape")
        await idle(pilot, app)
        assert probe.order == [] and app.permission_prompt is None
        assert [app.conversation.pane(t).state for t in ("toolu_1", "toolu_2")] == [
            "interrupted",
            "interrupted",
        ]
        assert INTERRUPTED_TEXT in notes(app)
        assert len(provider.requests) == 1  # the second question was never asked
        assert app.focused is app.prompt
        await send(pilot, "do something else")
        await idle(pilot, app)
        assert app.conversation.last_answer_source == "ok"
        assert provider.invalid == []


async def test_a_question_the_engine_withdraws_goes_away(tmp_path):
    """The turn stops while a question is open, not by the prompt's own Esc (a signal,
    the engine interrupted from elsewhere): the engine withdraws the question, and the
    prompt goes, giving the input back."""
    from agentcli.frontends.tui.widgets.permission_prompt import PermissionPrompt
    from tests.engine.scripted import Probe, make_tool

    probe = Probe()
    provider = ScriptedProvider(
        Response([tool_use("Poke", {"value": "1"}, "toolu_1")]), Response([text("ok")])
    )
    app = make_app(
        provider, tmp_path, [make_tool("Poke", probe, safe=False)], mode=PermissionMode.DEFAULT
    )
    async with app.run_test(size=(100, 40)) as pilot:
        await send(pilot, "poke")
        prompt = await wait_for(pilot, lambda: question_ready(app), "the prompt")
        app.engine.interrupt()
        await idle(pilot, app)
        await wait_for(pilot, lambda: not app.query(PermissionPrompt), "the prompt to go")
        assert app.permission_prompt is None and not prompt.question.is_open
        assert app.prompt.display and app.focused is app.prompt
        assert probe.order == [] and app.conversation.pane("toolu_1").state == "interrupted"
        assert INTERRUPTED_TEXT in notes(app)
        await send(pilot, "carry on")
        await idle(pilot, app)
        assert app.conversation.last_answer_source == "ok"


async def test_escape_in_the_feedback_field_interrupts_too(tmp_path):
    from tests.engine.scripted import Probe, make_tool

    probe = Probe()
    provider = ScriptedProvider(Response([tool_use("Poke", {"value": "1"})]))
    app = make_app(
        provider, tmp_path, [make_tool("Poke", probe, safe=False)], mode=PermissionMode.DEFAULT
    )
    async with app.run_test(size=(100, 40)) as pilot:
        await send(pilot, "poke")
        await wait_for(pilot, lambda: question_ready(app), "the prompt")
        await pilot.press("tab")
        await type_text(pilot, "half a thought")
        await pilot.press("escape")
        await idle(pilot, app)
        assert probe.order == [] and len(provider.requests) == 1
        assert INTERRUPT_MARKER in all_text(app.engine.messages)


async def test_ctrl_c_clears_the_prompt_then_twice_quits(tmp_path):
    app = make_app(ScriptedProvider(), tmp_path)
    async with app.run_test() as pilot:
        await type_text(pilot, "some text")
        await pilot.press("ctrl+c")
        assert app.prompt.text == ""
        assert app.is_running
        await pilot.press("ctrl+c")
        assert app.is_running
        await pilot.press("ctrl+c")
        await pilot.pause()
    assert app.return_code == 0


async def test_ctrl_d_on_an_empty_prompt_quits_but_deletes_otherwise(tmp_path):
    app = make_app(ScriptedProvider(), tmp_path)
    async with app.run_test() as pilot:
        await type_text(pilot, "ab")
        await pilot.press("home", "ctrl+d")
        assert app.prompt.text == "b" and app.is_running
        await pilot.press("ctrl+d")
        assert app.prompt.text == ""
        await pilot.press("ctrl+d")
        await pilot.pause()
    assert app.return_code == 0


async def test_shift_tab_cycles_the_permission_mode_and_the_status_bar_shows_it(tmp_path):
    app = make_app(ScriptedProvider(), tmp_path, mode=PermissionMode.DEFAULT)
    async with app.run_test() as pilot:
        await pilot.pause()
        policy = app.engine.gate.policy
        seen = []
        for _ in range(3):
            await pilot.press("shift+tab")
            seen.append((policy.mode, str(app.status_bar.render())))
        assert [mode for mode, _ in seen] == [
            PermissionMode.ACCEPT_EDITS,
            PermissionMode.PLAN,
            PermissionMode.DEFAULT,
        ]
        assert "accept edits" in seen[0][1] and "plan mode" in seen[1][1]


async def test_status_bar_shows_context_and_cost_after_a_turn(tmp_path):
    from agentcli.core.usage import Usage

    provider = ScriptedProvider(Response([text("ok")], usage=Usage(50_000, 10)))
    app = make_app(provider, tmp_path)
    async with app.run_test() as pilot:
        await send(pilot, "hi")
        await idle(pilot, app)
        bar = str(app.status_bar.render())
        assert "context 50.0k (25%)" in bar and "$" in bar


async def test_status_bar_percent_follows_the_models_window(tmp_path, monkeypatch):
    from agentcli.core.usage import Usage

    monkeypatch.setenv("AGENTCLI_CONTEXT_WINDOW", "100000")
    provider = ScriptedProvider(Response([text("ok")], usage=Usage(50_000, 10)))
    app = make_app(provider, tmp_path)
    async with app.run_test() as pilot:
        await send(pilot, "hi")
        await idle(pilot, app)
        assert "context 50.0k (50%)" in str(app.status_bar.render())


async def test_enter_on_a_focused_tool_pane_expands_and_collapses_it(tmp_path):
    """The keyboard way to read a call's whole result (the pane's own action, not
    Textual's built-in `toggle`, which takes an attribute name)."""
    (tmp_path / "notes.txt").write_text("first line\nsecond line\n")
    provider = ScriptedProvider(
        Response([tool_use("Read", {"file_path": str(tmp_path / "notes.txt")}, "toolu_r")]),
        Response([text("Read it.")]),
    )
    app = make_app(provider, tmp_path, [builtin_tools().get("Read")])
    async with app.run_test(size=(100, 40)) as pilot:
        await send(pilot, "read notes")
        await idle(pilot, app)
        pane = app.conversation.pane("toolu_r")
        assert pane.state == "done" and not pane.expanded
        pane.focus()
        await pilot.press("enter")
        await pilot.pause()
        assert pane.expanded and "second line" in str(pane._body.content)
        await pilot.press("enter")
        await pilot.pause()
        assert not pane.expanded and "second line" not in str(pane._body.content)


async def test_status_bar_shows_how_far_the_context_is_from_auto_compaction(tmp_path):
    """85% of a 200k window is the threshold: at 50k (25%) it is 60% away; with
    `autoCompact: false` the bar says it is off."""
    from agentcli.core.usage import Usage
    from agentcli.engine.compaction import Compactor

    for compactor, shown in (
        (Compactor(threshold=0.85), "60% until auto-compact"),
        (Compactor(threshold=0.85, auto=False), "auto-compact off"),
    ):
        provider = ScriptedProvider(Response([text("ok")], usage=Usage(50_000, 10)))
        app = make_app(provider, tmp_path, engine_kw={"compactor": compactor})
        async with app.run_test() as pilot:
            await send(pilot, "hi")
            await idle(pilot, app)
            bar = str(app.status_bar.render())
            assert f"context 50.0k (25%) · {shown} · $" in bar


async def test_an_auto_compaction_leaves_a_line_that_opens_to_show_the_summary(tmp_path):
    """What was kept and summarised is one line in the conversation; Enter opens it to
    the model's summary and the prompts carried verbatim, and closes it again."""
    from agentcli.core.usage import Usage
    from agentcli.engine.compaction import Compactor
    from agentcli.frontends.tui.widgets.compaction_note import CompactionNote

    provider = ScriptedProvider(
        Response([text("A1")], usage=Usage(400, 20)),
        Response([text("A2")], usage=Usage(990, 20)),  # the next request passes 1,000
        Response([text("THE SUMMARY OF EARLIER WORK")]),
        Response([text("A3")], usage=Usage(500, 20)),
    )
    compactor = Compactor(window=2000, threshold=0.5, keep_tokens=10, prompt_tokens=200)
    app = make_app(provider, tmp_path, engine_kw={"compactor": compactor})
    async with app.run_test(size=(100, 40)) as pilot:
        for prompt in ("never edit vendor/", "second", "third"):
            await send(pilot, prompt)
            await idle(pilot, app)
        notes = list(app.conversation.query(CompactionNote))
        assert len(notes) == 1 and compactor.compactions == 1
        note = notes[0]
        shown = str(note.render())
        assert "Kept verbatim" in shown and "your first prompt" in shown
        assert "Summarised: 4 earlier message(s)" in shown
        assert "THE SUMMARY" not in shown
        note.focus()
        await pilot.press("enter")
        await pilot.pause()
        opened = str(note.render())
        assert "THE SUMMARY OF EARLIER WORK" in opened and "never edit vendor/" in opened
        await pilot.press("enter")
        await pilot.pause()
        assert "THE SUMMARY" not in str(note.render())
