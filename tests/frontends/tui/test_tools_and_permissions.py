"""Tool panes, the permission prompt's three answers, and its key guard."""

from __future__ import annotations

from agentcli.config.rules import Rule
from agentcli.frontends.tui.widgets.permission_prompt import PermissionPrompt
from agentcli.frontends.tui.widgets.tool_pane import ToolPane
from agentcli.permissions.types import PermissionMode
from tests.engine.scripted import Probe, Response, ScriptedProvider, make_tool, text, tool_use
from tests.frontends.tui.helpers import (
    click,
    idle,
    make_app,
    question_ready,
    send,
    type_text,
    wait_for,
)


def note_texts(app) -> list[str]:
    return [str(n.render()) for n in app.conversation.query(".note")]


def tool_results(provider: ScriptedProvider, request: int) -> list[dict]:
    last = provider.requests[request].messages[-1]["content"]
    return [b for b in last if b["type"] == "tool_result"]


async def test_concurrent_tool_calls_each_get_their_own_pane(tmp_path):
    probe = Probe()
    calls = [
        tool_use("Look", {"value": "a"}, "toolu_a"),
        tool_use("Look", {"value": "b"}, "toolu_b"),
    ]
    provider = ScriptedProvider(Response([text("Looking."), *calls]), Response([text("Done.")]))
    app = make_app(provider, tmp_path, [make_tool("Look", probe, safe=True, behaviour="wait")])
    async with app.run_test(size=(100, 40)) as pilot:
        await send(pilot, "look")

        def both_running():
            panes = list(app.conversation.query(ToolPane))
            return len(panes) == 2 and all(p.state == "running" for p in panes)

        await wait_for(pilot, both_running, "both panes running")
        probe.release.set()
        await idle(pilot, app)
        panes = {p.tool_use_id: p for p in app.conversation.query(ToolPane)}
        assert set(panes) == {"toolu_a", "toolu_b"}
        assert panes["toolu_a"].label == "Look(a)" and panes["toolu_b"].label == "Look(b)"
        assert all(p.state == "done" for p in panes.values())
        assert panes["toolu_a"].summary == "Look did a"
        assert panes["toolu_b"].summary == "Look did b"
        assert probe.max_running == 2  # they really ran together
        assert app.conversation.last_answer_source == "Done."


async def test_running_tool_shows_live_output_then_the_summary_expands(tmp_path):
    probe = Probe()
    provider = ScriptedProvider(
        Response([tool_use("Slow", {"value": "x"}, "toolu_s")]), Response([text("ok")])
    )
    app = make_app(provider, tmp_path, [make_tool("Slow", probe, safe=True, behaviour="wait")])
    async with app.run_test() as pilot:
        await send(pilot, "go")
        pane = await wait_for(pilot, lambda: app.conversation.pane("toolu_s"), "the pane")
        await wait_for(pilot, lambda: "working on x" in str(pane._body.render()), "live output")
        assert pane.state == "running" and pane.has_class("-running")
        probe.release.set()
        await idle(pilot, app)
        assert pane.state == "done"
        collapsed = str(pane._body.render())
        await click(pilot, pane)
        assert pane.expanded and "Slow did x" in str(pane._body.render())
        assert "⎿" in collapsed


async def test_failed_tool_pane_is_marked_failed(tmp_path):
    probe = Probe()
    provider = ScriptedProvider(
        Response([tool_use("Bad", {"value": "x"}, "toolu_f")]), Response([text("sorry")])
    )
    app = make_app(provider, tmp_path, [make_tool("Bad", probe, safe=True, behaviour="tool_error")])
    async with app.run_test() as pilot:
        await send(pilot, "go")
        await idle(pilot, app)
        pane = app.conversation.pane("toolu_f")
        assert pane.state == "failed" and "Bad cannot do x" in pane.summary


def asking_app(tmp_path, *responses, guard_s=0.0):
    probe = Probe()
    provider = ScriptedProvider(*responses)
    app = make_app(
        provider,
        tmp_path,
        [make_tool("Poke", probe, safe=False)],
        mode=PermissionMode.DEFAULT,
        guard_s=guard_s,
    )
    return app, provider, probe


async def open_prompt(pilot, app) -> PermissionPrompt:
    await send(pilot, "poke it")
    return await wait_for(pilot, lambda: question_ready(app), "the permission prompt")


async def test_allow_once_runs_the_tool_and_asks_again_next_time(tmp_path):
    calls = [Response([tool_use("Poke", {"value": "1"})]), Response([text("ok")])]
    app, provider, probe = asking_app(tmp_path, *calls, *calls)
    async with app.run_test(size=(100, 40)) as pilot:
        prompt = await open_prompt(pilot, app)
        assert app.focused is prompt
        assert app.conversation.query(ToolPane).first().state == "waiting"
        await pilot.press("y")
        await idle(pilot, app)
        assert "start:Poke:1" in probe.order
        assert tool_results(provider, 1)[0].get("is_error") is not True
        await open_prompt(pilot, app)  # asked again: "once" left no rule
        await pilot.press("1")
        await idle(pilot, app)
        assert probe.order.count("start:Poke:1") == 2
        assert app.engine.gate.policy.allow == []


async def test_allow_for_session_adds_a_rule_and_stops_asking(tmp_path):
    calls = [Response([tool_use("Poke", {"value": "1"})]), Response([text("ok")])]
    app, _provider, probe = asking_app(tmp_path, *calls, *calls)
    async with app.run_test(size=(100, 40)) as pilot:
        await open_prompt(pilot, app)
        await pilot.press("a")
        await idle(pilot, app)
        assert Rule("Poke") in app.engine.gate.policy.allow
        await send(pilot, "again")
        await idle(pilot, app)
        assert app.permission_prompt is None
        assert probe.order.count("start:Poke:1") == 2


async def test_deny_with_n_and_with_3_does_not_run_the_tool(tmp_path):
    calls = [Response([tool_use("Poke", {"value": "1"})]), Response([text("ok")])]
    app, provider, probe = asking_app(tmp_path, *calls, *calls)
    async with app.run_test(size=(100, 40)) as pilot:
        await open_prompt(pilot, app)
        await pilot.press("n")
        await idle(pilot, app)
        (result,) = tool_results(provider, 1)
        assert result["is_error"] is True and "denied" in str(result["content"])
        assert app.conversation.query(ToolPane).first().state == "denied"
        await open_prompt(pilot, app)
        await pilot.press("3")
        await idle(pilot, app)
        assert probe.order == []
        assert app.focused is app.prompt
        assert len(provider.requests) == 4  # "no" carries on: the model hears of it


async def test_deny_with_feedback_tells_the_model_what_to_do(tmp_path):
    app, provider, probe = asking_app(
        tmp_path, Response([tool_use("Poke", {"value": "1"})]), Response([text("ok")])
    )
    async with app.run_test(size=(100, 40)) as pilot:
        await open_prompt(pilot, app)
        await pilot.press("tab")
        await type_text(pilot, "use the other file")
        await pilot.press("enter")
        await idle(pilot, app)
        (result,) = tool_results(provider, 1)
        assert "use the other file" in str(result["content"])
        assert probe.order == []


async def test_keys_typed_just_before_the_prompt_appears_do_not_answer_it(tmp_path):
    app, _provider, probe = asking_app(
        tmp_path,
        Response([tool_use("Poke", {"value": "1"})]),
        Response([text("ok")]),
        guard_s=3600.0,
    )
    async with app.run_test(size=(100, 40)) as pilot:
        prompt = await open_prompt(pilot, app)
        await pilot.press("y")
        await pilot.pause()
        assert prompt.ignored_keys == 1 and prompt.question.is_open
        assert probe.order == []
        prompt.guard_s = 0.0  # the guard has passed
        await pilot.press("y")
        await idle(pilot, app)
        assert probe.order == ["start:Poke:1", "end:Poke:1"]


async def test_edit_permission_prompt_shows_the_diff(tmp_path):
    from agentcli.frontends.tui.widgets.diff_view import DiffView
    from agentcli.tools.registry import builtin_tools

    (tmp_path / "config.py").write_text("value = 1\n")
    edit = {
        "file_path": str(tmp_path / "config.py"),
        "old_string": "value = 1",
        "new_string": "value = 2",
    }
    provider = ScriptedProvider(
        Response([tool_use("Read", {"file_path": str(tmp_path / "config.py")})]),
        Response([tool_use("Edit", edit, "toolu_e")]),
        Response([text("Changed.")]),
    )
    tools = [builtin_tools().get("Read"), builtin_tools().get("Edit")]
    app = make_app(provider, tmp_path, tools, mode=PermissionMode.DEFAULT)
    async with app.run_test(size=(100, 40)) as pilot:
        prompt = await open_prompt(pilot, app)
        diff = str(prompt.query_one(DiffView).render())
        assert "- value = 1" in diff and "+ value = 2" in diff
        await pilot.press("1")
        await idle(pilot, app)
        assert (tmp_path / "config.py").read_text() == "value = 2\n"
        pane = app.conversation.pane("toolu_e")
        shown = str(pane.query_one(DiffView).render())
        assert "- value = 1" in shown and "+ value = 2" in shown


def edit_on_line_4_app(tmp_path, *, read_first: bool = True, **edit_fields):
    from agentcli.tools.registry import builtin_tools

    target = tmp_path / "config.py"
    target.write_text("# settings\nname = 'demo'\ndebug = False\nvalue = 1\nlast = True\n")
    edit = {"file_path": str(target), "old_string": "value = 1", "new_string": "value = 2"}
    edit.update(edit_fields)
    script = [Response([tool_use("Edit", edit, "toolu_e")]), Response([text("Done.")])]
    if read_first:
        script.insert(0, Response([tool_use("Read", {"file_path": str(target)})]))
    provider = ScriptedProvider(*script)
    tools = [builtin_tools().get("Read"), builtin_tools().get("Edit")]
    app = make_app(provider, tmp_path, tools, mode=PermissionMode.DEFAULT)
    return app, provider, target


async def test_the_edit_question_shows_the_tools_diff_with_real_line_numbers(tmp_path):
    from agentcli.frontends.tui.widgets.diff_view import DiffView

    app, _provider, _target = edit_on_line_4_app(tmp_path)
    async with app.run_test(size=(100, 50)) as pilot:
        prompt = await open_prompt(pilot, app)
        lines = str(prompt.query_one(DiffView).render()).splitlines()
        assert lines == [
            "1   # settings",
            "2   name = 'demo'",
            "3   debug = False",
            "4 - value = 1",
            "4 + value = 2",
            "5   last = True",
        ]
        await pilot.press("3")
        await idle(pilot, app)


async def test_an_edit_that_cannot_apply_fails_before_asking(tmp_path):
    app, provider, target = edit_on_line_4_app(tmp_path, read_first=False)
    async with app.run_test(size=(100, 40)) as pilot:
        await send(pilot, "change it")
        await idle(pilot, app)
        assert app.permission_prompt is None  # nobody was asked
        pane = app.conversation.pane("toolu_e")
        assert pane.state == "failed" and "has not been read" in pane.summary
        (result,) = tool_results(provider, 1)
        assert result["is_error"] and "Use the Read tool" in str(result["content"])
        assert "value = 1" in target.read_text()


async def test_an_edit_whose_text_is_not_in_the_file_fails_before_asking(tmp_path):
    app, provider, _target = edit_on_line_4_app(tmp_path, old_string="value = 7")
    async with app.run_test(size=(100, 40)) as pilot:
        await send(pilot, "change it")
        await idle(pilot, app)
        assert app.permission_prompt is None
        (result,) = tool_results(provider, 2)
        assert "was not found" in str(result["content"])


async def test_yes_for_this_project_saves_the_rule_and_stops_asking(tmp_path):
    import json

    calls = [Response([tool_use("Poke", {"value": "1"})]), Response([text("ok")])]
    app, _provider, probe = asking_app(tmp_path, *calls, *calls)
    async with app.run_test(size=(100, 40)) as pilot:
        prompt = await open_prompt(pilot, app)
        options = str(prompt.query_one(".permission-options").render())
        assert "4. Yes, and don't ask again for `Poke` in this project" in options
        await pilot.press("p")
        await idle(pilot, app)
        local = tmp_path / ".agentcli" / "settings.local.json"
        assert json.loads(local.read_text()) == {"permissions": {"allow": ["Poke"]}}
        assert any("Saved Poke to" in n for n in note_texts(app))
        await send(pilot, "again")
        await idle(pilot, app)
        assert app.permission_prompt is None
        assert probe.order.count("start:Poke:1") == 2


async def test_project_and_session_answers_are_not_offered_when_there_is_no_rule_to_add(tmp_path):
    from agentcli.tools.registry import builtin_tools

    bash = builtin_tools().get("Bash")
    provider = ScriptedProvider(
        # A line the analyser cannot take apart gets no rule suggestion.
        Response([tool_use("Bash", {"command": "echo 'unterminated"})]),
        Response([text("ok")]),
    )
    app = make_app(provider, tmp_path, [bash], mode=PermissionMode.DEFAULT)
    async with app.run_test(size=(100, 40)) as pilot:
        prompt = await open_prompt(pilot, app)
        assert prompt.request.rules == ()
        options = str(prompt.query_one(".permission-options").render())
        assert "2." not in options and "4." not in options
        await pilot.press("p")
        await pilot.pause()
        assert prompt.question.is_open  # an answer not offered is not taken
        await pilot.press("n")
        await idle(pilot, app)


async def test_the_plan_question_shows_the_whole_plan(tmp_path):
    from agentcli.tools.exit_plan_mode import ExitPlanModeTool

    plan = "1. Read config.py\n2. Change value to 2\n3. Run the tests"
    provider = ScriptedProvider(
        Response([tool_use("ExitPlanMode", {"plan": plan}, "toolu_p")]), Response([text("ok")])
    )
    app = make_app(provider, tmp_path, [ExitPlanModeTool()], mode=PermissionMode.PLAN)
    async with app.run_test(size=(100, 40)) as pilot:
        prompt = await open_prompt(pilot, app)
        assert str(prompt.query_one(".permission-preview").content) == plan
        options = str(prompt.query_one(".permission-options").render())
        assert "2. Yes, and accept edits for the rest of this session  (2/a)" in options
        assert "4." not in options
        await pilot.press("2")
        await idle(pilot, app)
        assert app.engine.gate.policy.mode is PermissionMode.ACCEPT_EDITS
        assert str(app.conversation.pane("toolu_p").query_one(".tool-detail").content) == plan
