"""The model's questions to the person in the app (AskUserQuestion): the keys a person
presses and what the model reads back."""

from __future__ import annotations

from typing import Any

from agentcli.frontends.tui.widgets.permission_prompt import PermissionPrompt
from agentcli.frontends.tui.widgets.question_prompt import QuestionPrompt
from agentcli.frontends.tui.widgets.tool_pane import ToolPane
from agentcli.permissions.types import PermissionMode
from agentcli.tools.ask_user_question import AskUserQuestionTool
from tests.engine.scripted import Response, ScriptedProvider, text, tool_use
from tests.frontends.tui.helpers import idle, make_app, question_ready, send, type_text, wait_for
from tests.support.ask_user_questions import QUESTIONS

LIBRARY, CHECKS = QUESTIONS  # a single choice and a multiSelect one


def asking_app(tmp_path, *questions: dict[str, Any], guard_s: float = 0.0):
    provider = ScriptedProvider(
        Response([tool_use("AskUserQuestion", {"questions": list(questions)}, "toolu_q")]),
        Response([text("Thanks.")]),
    )
    app = make_app(
        provider, tmp_path, [AskUserQuestionTool()], mode=PermissionMode.BYPASS, guard_s=guard_s
    )
    return app, provider


async def the_prompt(pilot, app) -> QuestionPrompt:
    prompt = await wait_for(pilot, lambda: question_ready(app), "the question")
    assert isinstance(prompt, QuestionPrompt)
    return prompt


def what_the_model_read(provider: ScriptedProvider) -> dict[str, Any]:
    (result,) = [
        block
        for block in provider.requests[1].messages[-1]["content"]
        if block["type"] == "tool_result"
    ]
    return result


def shown(prompt: QuestionPrompt) -> str:
    return "\n".join(str(widget.render()) for widget in prompt.query("Static"))


async def test_a_number_key_answers_and_the_model_reads_it(tmp_path):
    app, provider = asking_app(tmp_path, LIBRARY)
    async with app.run_test(size=(100, 40)) as pilot:
        await send(pilot, "pick one")
        prompt = await the_prompt(pilot, app)
        screen = shown(prompt)
        assert "Library" in screen and "Which library?" in screen
        assert "1. httpx" in screen and "async and sync" in screen
        assert "3. Other" in screen
        assert not app.prompt.display  # in place of the input
        await pilot.press("2")
        await idle(pilot, app)
        assert app.permission_prompt is None and app.prompt.display
    result = what_the_model_read(provider)
    assert not result.get("is_error")
    assert result["content"] == (
        'User has answered your questions: "Which library?"="requests". '
        "You can now continue with the user's answers in mind."
    )


async def test_the_call_says_it_waits_for_an_answer_not_a_permission(tmp_path):
    app, _provider = asking_app(tmp_path, LIBRARY)
    async with app.run_test(size=(100, 40)) as pilot:
        await send(pilot, "pick one")
        await the_prompt(pilot, app)
        (pane,) = app.conversation.query(ToolPane)
        header = str(pane._header_text())
        assert "waiting for your answer" in header and "permission" not in header
        await pilot.press("1")
        await idle(pilot, app)


async def test_arrows_and_enter_then_a_multiselect_with_space(tmp_path):
    app, provider = asking_app(tmp_path, LIBRARY, CHECKS)
    async with app.run_test(size=(100, 40)) as pilot:
        await send(pilot, "ask")
        prompt = await the_prompt(pilot, app)
        assert "1 of 2" in shown(prompt)
        # Down twice lands on "Other" (the cursor stops there), Up on "requests".
        await pilot.press("down", "down", "down", "up", "enter")
        await wait_for(pilot, lambda: "Which checks?" in shown(prompt), "the second question")
        assert "2 of 2" in shown(prompt) and "[ ] 1. lint" in shown(prompt)
        await pilot.press("space", "down", "down", "space")  # lint and tests
        assert "[x] 1. lint" in shown(prompt) and "[x] 3. tests" in shown(prompt)
        await pilot.press("2", "2")  # ticked, then unticked again
        assert "[ ] 2. types" in shown(prompt)
        await pilot.press("enter")
        await idle(pilot, app)
    assert what_the_model_read(provider)["content"] == (
        'User has answered your questions: "Which library?"="requests", '
        '"Which checks?"="lint, tests". '
        "You can now continue with the user's answers in mind."
    )


async def test_other_takes_the_persons_own_words(tmp_path):
    app, provider = asking_app(tmp_path, LIBRARY)
    async with app.run_test(size=(100, 40)) as pilot:
        await send(pilot, "ask")
        await the_prompt(pilot, app)
        await pilot.press("3")  # Other: the keys go to the answer field
        await pilot.press("enter")  # nothing typed yet: nothing is answered
        assert app.permission_prompt is not None
        await type_text(pilot, "urllib3, pinned")
        await pilot.press("enter")
        await idle(pilot, app)
    assert '"Which library?"="urllib3, pinned"' in what_the_model_read(provider)["content"]


async def test_esc_interrupts_the_turn_like_any_question(tmp_path):
    app, provider = asking_app(tmp_path, LIBRARY)
    async with app.run_test(size=(100, 40)) as pilot:
        await send(pilot, "ask")
        await the_prompt(pilot, app)
        await pilot.press("3")  # even from the answer field
        await pilot.press("escape")
        await idle(pilot, app)
        assert app.permission_prompt is None
    assert len(provider.requests) == 1  # the model is not asked again
    pane = app.conversation.pane("toolu_q")
    assert pane.state == "interrupted"


async def test_keys_typed_before_the_question_showed_are_not_answers(tmp_path):
    app, provider = asking_app(tmp_path, LIBRARY, guard_s=3600.0)
    async with app.run_test(size=(100, 40)) as pilot:
        await send(pilot, "ask")
        prompt = await the_prompt(pilot, app)
        await pilot.press("1", "enter")
        assert prompt.ignored_keys == 2 and app.permission_prompt is prompt
        prompt.guard_s = 0.0  # the guard has passed
        await pilot.press("1")
        await idle(pilot, app)
    assert '"Which library?"="httpx"' in what_the_model_read(provider)["content"]


async def test_an_ordinary_permission_question_keeps_its_prompt(tmp_path):
    from tests.engine.scripted import Probe, make_tool

    provider = ScriptedProvider(
        Response([tool_use("Poke", {"value": "x"}, "toolu_p")]), Response([text("ok")])
    )
    tool = make_tool("Poke", Probe(), safe=False)
    app = make_app(provider, tmp_path, [tool], mode=PermissionMode.DEFAULT)
    async with app.run_test(size=(100, 40)) as pilot:
        await send(pilot, "poke")
        prompt = await wait_for(pilot, lambda: question_ready(app), "the permission prompt")
        assert isinstance(prompt, PermissionPrompt)
        await pilot.press("y")
        await idle(pilot, app)


async def test_the_answered_call_shows_its_answers(tmp_path):
    app, _provider = asking_app(tmp_path, LIBRARY)
    async with app.run_test(size=(100, 40)) as pilot:
        await send(pilot, "ask")
        await the_prompt(pilot, app)
        await pilot.press("1")
        await idle(pilot, app)
        pane = app.conversation.pane("toolu_q")
        assert pane.state == "done" and pane.summary == "Answered 1 question"
        assert app.conversation.last_answer_source == "Thanks."  # the turn went on


def test_snapshot_of_a_multiselect_question_with_one_ticked(snap_compare, tmp_path):
    from tests.frontends.tui.test_snapshots import PROJECT, SIZE, quiet_status, settle

    provider = ScriptedProvider(
        Response(
            [
                text("Two things before I start."),
                tool_use("AskUserQuestion", {"questions": [LIBRARY, CHECKS]}, "toolu_q"),
            ]
        ),
        Response([text("Thanks.")]),
    )
    app = make_app(provider, tmp_path, [AskUserQuestionTool()], cwd=PROJECT, cursor_blink=False)

    async def run_before(pilot):
        await send(pilot, "Set up the client")
        prompt = await the_prompt(pilot, app)
        await pilot.press("1")  # httpx: on to the second question
        await wait_for(pilot, lambda: "Which checks?" in shown(prompt), "the second question")
        await pilot.press("down", "space")  # types ticked, the cursor on it
        quiet_status(app)
        await settle(pilot, app)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)
