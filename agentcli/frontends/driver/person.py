"""Asking the person the model's questions (AskUserQuestion), for every front end.

An AskUserQuestion call reaches a front end as an ordinary permission question
(permissions/question.py) whose preview is the questions (`QuestionsDisplay`),
and its answer is an ordinary `PermissionAnswer` that carries the answers in
the call's changed input: Claude Code's way, which is why the Agent SDK's
`can_use_tool` needs nothing of this (the program returns `updatedInput` with
`answers` itself). A front end that asks a person itself (the TUI, ACP) uses
this module instead of building that answer by hand:

- `person_questions(request)`: the questions when this permission question is
  one for the person, else None (an ordinary yes/no about a tool);
- `answered(request, answers)`: the answer that gives the person's answers
  (question text -> the chosen label, a multiSelect question's labels joined by
  `joined()`, or the person's own words);
- `declined(feedback)`: the person would not answer, the turn goes on;
  Esc is the usual interrupt (`PermissionAnswer(allow=False, interrupt=True)`).

A front end answers the question in its `answer()` (the driver's FrontEnd) as it
answers any other: ACP asks the editor one request per question, the TUI's
prompt answers it when the person has chosen; the driver's Questions
(questions.py) sees to it that it is answered exactly once, as any other.
Nothing here knows a front end; the engine knows none of this.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from agentcli.permissions.question_models import Asker, PermissionAnswer, PermissionRequest
from agentcli.tools.ask_user_question import Question, QuestionsDisplay, joined

__all__ = [
    "PersonQuestions",
    "answered",
    "declined",
    "joined",
    "person_questions",
]


@dataclass(frozen=True, slots=True)
class PersonQuestions:
    """The model's questions to the person, as a front end draws them."""

    questions: tuple[Question, ...]
    asked_by: Asker | None = None


def person_questions(request: PermissionRequest) -> PersonQuestions | None:
    """The questions, when this permission question is the model asking the person."""
    preview = request.preview
    if not isinstance(preview, QuestionsDisplay):
        return None
    return PersonQuestions(preview.questions, request.asked_by)


def answered(request: PermissionRequest, answers: Mapping[str, str]) -> PermissionAnswer:
    """The permission answer that hands the person's answers to the call."""
    asked = {key: value for key, value in request.input.items() if key != "answers"}
    return PermissionAnswer(allow=True, updated_input={**asked, "answers": dict(answers)})


def declined(feedback: str | None = None) -> PermissionAnswer:
    """The person would not answer (the turn goes on; the model is told)."""
    return PermissionAnswer(allow=False, feedback=feedback)
