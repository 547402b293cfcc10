"""AskUserQuestion through the real engine loop: what the model sends, what the person
is asked, and what the model reads back.

Each bad input gets one clear tool error and nobody is asked; a good one is always
put to the person (in every mode, whatever a rule or a PreToolUse hook allows), and
only the person's answers (never the model's own `answers`) reach the result, in
Claude Code's words.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from agentcli.engine.events import EndReason, ToolCallFinished, ToolPermissionRequested, TurnEnded
from agentcli.frontends.driver.person import answered, declined, joined, person_questions
from agentcli.permissions.question_models import PermissionAnswer, PermissionRequest
from agentcli.permissions.types import PermissionMode
from agentcli.tools.ask_user_question import AskUserQuestionTool, QuestionsDisplay
from tests.engine.harness import make_engine, of_type, run_turn
from tests.engine.scripted import Response, ScriptedProvider, text, tool_use


def option(label: str, description: str = "") -> dict[str, str]:
    return {"label": label, "description": description or f"pick {label}"}


def question(text_: str = "Which library?", header: str = "Library", **more: Any) -> dict[str, Any]:
    return {
        "question": text_,
        "header": header,
        "options": more.pop("options", [option("httpx"), option("requests")]),
        **more,
    }


async def one_call(
    root: Path,
    inp: dict[str, Any],
    answer: Any = None,
    *,
    mode: PermissionMode = PermissionMode.DEFAULT,
    allow: list[str] | None = None,
    deny: list[str] | None = None,
    hooks: dict[str, Any] | None = None,
) -> tuple[list[Any], ScriptedProvider, list[PermissionRequest]]:
    provider = ScriptedProvider(
        Response([tool_use("AskUserQuestion", inp, id="ask1")]), Response([text("ok")])
    )
    engine = make_engine(
        provider, [AskUserQuestionTool()], root, mode=mode, allow=allow, deny=deny, hooks=hooks
    )
    asked: list[PermissionRequest] = []

    async def reply(request: PermissionRequest) -> PermissionAnswer:
        asked.append(request)
        assert answer is not None, "nobody should have been asked"
        return answer(request)

    events = await run_turn(engine, "go", reply)
    return events, provider, asked


def result_of(events: list[Any]) -> ToolCallFinished:
    (finished,) = of_type(events, ToolCallFinished)
    return finished


def result_text(finished: ToolCallFinished) -> str:
    content = finished.result["content"]
    return content if isinstance(content, str) else content[0]["text"]


BAD_INPUTS = {
    "no questions": ({"questions": []}, "has 0 questions; ask 1 to 4"),
    "five questions": (
        {"questions": [question(f"Q{i}?") for i in range(5)]},
        "has 5 questions; ask 1 to 4",
    ),
    "one option": (
        {"questions": [question(options=[option("only")])]},
        "has 1 options; a question has 2 to 4",
    ),
    "five options": (
        {"questions": [question(options=[option(f"o{i}") for i in range(5)])]},
        "has 5 options; a question has 2 to 4",
    ),
    "empty label": (
        {"questions": [question(options=[option("a"), {"label": "  ", "description": "x"}])]},
        "the label is empty",
    ),
    "duplicate labels": (
        {"questions": [question(options=[option("Fast"), option("fast ")])]},
        "two options are labelled 'fast'",
    ),
    "long header": (
        {"questions": [question(header="Authentication")]},
        "is 14 characters; a header is at most 12",
    ),
    "blank question": ({"questions": [question("   ")]}, "the question is empty"),
    "same question twice": (
        {"questions": [question("Same?"), question("Same?", header="Other")]},
        "the question 'Same?' is asked twice",
    ),
    "unknown field": (
        {"questions": [question(multiple=True)]},
        "questions.0.multiple: unexpected field",
    ),
    "options not a list": ({"questions": [question(options="a, b")]}, "questions.0.options"),
}


@pytest.mark.parametrize("case", sorted(BAD_INPUTS))
async def test_bad_input_is_one_clear_error_and_nobody_is_asked(tmp_path: Path, case: str) -> None:
    inp, words = BAD_INPUTS[case]
    events, provider, asked = await one_call(tmp_path, inp)
    finished = result_of(events)
    assert finished.is_error and finished.status == "failed"
    message = result_text(finished)
    assert message.startswith("Invalid input for AskUserQuestion: ")
    assert words in message
    assert asked == [] and not of_type(events, ToolPermissionRequested)
    assert of_type(events, TurnEnded)[0].reason is EndReason.COMPLETED
    # The model read that one message and went on.
    sent = provider.requests[1].messages[-1]["content"][0]
    assert sent["is_error"] is True and sent["content"] == message


TWO = {
    "questions": [
        question("Which library?", "Library"),
        question(
            "Which checks?",
            "Checks",
            options=[option("lint"), option("types"), option("tests")],
            multiSelect=True,
        ),
    ]
}


async def test_the_answers_come_back_in_claude_codes_words(tmp_path: Path) -> None:
    def reply(request: PermissionRequest) -> PermissionAnswer:
        asked = person_questions(request)
        assert asked is not None
        assert [q.question for q in asked.questions] == ["Which library?", "Which checks?"]
        assert asked.questions[1].multi_select is True
        return answered(
            request,
            {"Which checks?": joined(["lint", "tests"]), "Which library?": "httpx"},
        )

    events, _provider, asked = await one_call(tmp_path, TWO, reply)
    finished = result_of(events)
    assert not finished.is_error, result_text(finished)
    assert result_text(finished) == (
        'User has answered your questions: "Which library?"="httpx", '
        '"Which checks?"="lint, tests". '
        "You can now continue with the user's answers in mind."
    )
    assert isinstance(finished.display, QuestionsDisplay)
    assert finished.display.answers == {"Which library?": "httpx", "Which checks?": "lint, tests"}
    (request,) = asked
    assert request.title == "Question for you" and request.summary == "Library, Checks"
    assert [option.scope for option in request.options] == ["once"]  # no rules to remember


async def test_a_free_answer_is_the_persons_own_words(tmp_path: Path) -> None:
    events, _, _ = await one_call(
        tmp_path,
        {"questions": [question()]},
        lambda request: answered(request, {"Which library?": "urllib3, pinned"}),
    )
    assert '"Which library?"="urllib3, pinned"' in result_text(result_of(events))


@pytest.mark.parametrize(
    "mode", [PermissionMode.BYPASS, PermissionMode.ACCEPT_EDITS, PermissionMode.PLAN]
)
async def test_every_mode_asks_the_person(tmp_path: Path, mode: PermissionMode) -> None:
    events, _, asked = await one_call(
        tmp_path,
        {"questions": [question()]},
        lambda request: answered(request, {"Which library?": "httpx"}),
        mode=mode,
        allow=["AskUserQuestion"],
    )
    assert len(asked) == 1
    assert '"Which library?"="httpx"' in result_text(result_of(events))


async def test_a_pretooluse_hook_allowing_it_still_asks(tmp_path: Path) -> None:
    script = tmp_path / "allow.py"
    script.write_text(
        "import json\nprint(json.dumps({'hookSpecificOutput': {'hookEventName': 'PreToolUse',"
        " 'permissionDecision': 'allow'}}))\n"
    )
    hooks = {
        "PreToolUse": [
            {
                "matcher": "AskUserQuestion",
                "hooks": [{"type": "command", "command": f"{sys.executable} {script}"}],
            }
        ]
    }
    events, _, asked = await one_call(
        tmp_path,
        {"questions": [question()]},
        lambda request: answered(request, {"Which library?": "requests"}),
        hooks=hooks,
    )
    assert len(asked) == 1
    assert '"Which library?"="requests"' in result_text(result_of(events))


async def test_a_deny_rule_refuses_it_without_asking(tmp_path: Path) -> None:
    events, provider, asked = await one_call(
        tmp_path, {"questions": [question()]}, deny=["AskUserQuestion"]
    )
    finished = result_of(events)
    assert asked == [] and finished.is_error
    # A bare deny rule hides the tool: the model is not even offered it.
    assert "AskUserQuestion" not in [tool["name"] for tool in provider.requests[0].tools]


async def test_the_models_own_answers_never_pass_for_the_persons(tmp_path: Path) -> None:
    forged = {"questions": [question()], "answers": {"Which library?": "requests"}}

    # The front end allows without answers of its own (an SDK program's bare allow).
    events, _, asked = await one_call(
        tmp_path, forged, lambda request: PermissionAnswer(allow=True)
    )
    assert "answers" not in asked[0].input  # the person is not shown the model's guess
    text_ = result_text(result_of(events))
    assert "requests" not in text_ and text_.startswith("The user did not answer")

    events, _, _ = await one_call(
        tmp_path, forged, lambda request: answered(request, {"Which library?": "httpx"})
    )
    assert '"Which library?"="httpx"' in result_text(result_of(events))


async def test_answers_to_questions_not_asked_are_an_error(tmp_path: Path) -> None:
    events, _, _ = await one_call(
        tmp_path,
        {"questions": [question()]},
        lambda request: answered(request, {"Which database?": "sqlite"}),
    )
    finished = result_of(events)
    assert finished.is_error
    assert "'Which database?' is not one" in result_text(finished)


async def test_declining_lets_the_turn_go_on(tmp_path: Path) -> None:
    events, provider, _ = await one_call(
        tmp_path, {"questions": [question()]}, lambda request: declined("pick yourself")
    )
    finished = result_of(events)
    assert finished.is_error and finished.status == "denied"
    assert result_text(finished) == (
        "The user declined to answer the questions. The user said: pick yourself"
    )
    assert of_type(events, TurnEnded)[0].reason is EndReason.COMPLETED
    assert len(provider.requests) == 2


async def test_esc_at_the_question_stops_the_turn(tmp_path: Path) -> None:
    events, provider, _ = await one_call(
        tmp_path,
        {"questions": [question()]},
        lambda request: PermissionAnswer(allow=False, interrupt=True),
    )
    finished = result_of(events)
    assert finished.status == "interrupted"
    assert of_type(events, TurnEnded)[0].reason is EndReason.ABORTED_TOOLS
    assert len(provider.requests) == 1  # the model is not asked again


@pytest.mark.parametrize("tools", [None, ("Read", "AskUserQuestion")], ids=["all", "named"])
def test_a_subagent_never_gets_it(tmp_path: Path, tools: tuple[str, ...] | None) -> None:
    """As in Claude Code: a subagent works on its own and reports back; the main
    conversation is the one that asks the person."""
    from agentcli.agents.definitions import AgentDefinition
    from agentcli.agents.sub_engine import subagent_tools
    from agentcli.tools.read import ReadTool

    engine = make_engine(None, [ReadTool(), AskUserQuestionTool()], tmp_path)
    agent = AgentDefinition(name="helper", description="d", system_prompt="s", tools=tools)
    registry, _mcp = subagent_tools(agent, engine)
    assert registry.names() == ["Read"]
