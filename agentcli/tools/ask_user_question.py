"""AskUserQuestion: the model asks the person one to four multiple-choice questions.

Claude Code's tool and input shape, so prompts and SDK programs carry over:
`{questions: [{question, header, options: [{label, description}], multiSelect}]}`,
1-4 questions of 2-4 options each; the person may always give an answer of their
own instead ("Other"), so the model never lists one. The answers come back in the
input's `answers` (question text -> the chosen label, a multiSelect question's
labels joined with ", ", or the person's own words), and the result the model
reads is Claude Code's: `User has answered your questions: "<question>"="<answer>",
... You can now continue with the user's answers in mind.`

How the answers get there: the call is a question to the person, so it always
goes through the permission gate (permissions/policy.py asks about it in every
mode; nothing allows it without asking), and the person's answer is the gate's
answer with the input changed to carry `answers` (`PermissionAnswer.updated_input`,
which `answered()` builds). That is how Claude Code does it too, so an Agent SDK
program answers it in `can_use_tool` by returning `updatedInput` with `answers`,
and a PermissionRequest hook can answer it the same way. Each front end draws the
questions from the question's preview (`QuestionsDisplay`), see
frontends/driver/person.py. The model's own `answers`, if it sent some, never
count: the gate drops them (permissions/gate.py).

What the validation refuses, each with one message for the model: a count of
questions or options out of range, a blank question or label, two questions
with the same text (the answers are keyed by it), two options of one question
with the same label (the person could not tell them apart), a header longer
than HEADER_CHARS, and answers to questions that were not asked.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator
from pydantic_core import PydanticCustomError

from agentcli.tools.base import Tool, ToolContext, ToolResult, Workspace
from agentcli.tools.display import ToolDisplay
from agentcli.tools.inputs import ToolInput

NAME = "AskUserQuestion"
HEADER_CHARS = 12  # Claude Code's "max 12 chars": a chip beside the question
MIN_QUESTIONS, MAX_QUESTIONS = 1, 4
MIN_OPTIONS, MAX_OPTIONS = 2, 4
MULTI_JOIN = ", "  # a multiSelect question's chosen labels, as Claude Code joins them
NO_ANSWERS = (
    "The user did not answer the questions. Go on with your best judgement, "
    "or ask in plain text if the choice matters."
)


def _not_blank(value: str, what: str) -> str:
    if not value.strip():
        raise PydanticCustomError("blank", "{what} is empty", {"what": what})
    return value


class QuestionOption(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    label: str = Field(
        description=(
            "The display text for this option that the user will see and select. "
            "Should be concise (1-5 words) and clearly describe the choice."
        )
    )
    description: str = Field(
        description=(
            "Explanation of what this option means or what will happen if chosen. "
            "Useful for providing context about trade-offs or implications."
        )
    )

    @field_validator("label")
    @classmethod
    def _label(cls, value: str) -> str:
        return _not_blank(value, "the label")


class Question(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True, defer_build=True)

    question: str = Field(
        description=(
            "The complete question to ask the user. Should be clear, specific, and end "
            'with a question mark. Example: "Which library should we use for date '
            'formatting?" If multiSelect is true, phrase it accordingly, e.g. "Which '
            'features do you want to enable?"'
        )
    )
    header: str = Field(
        description=(
            f"Very short label displayed as a chip/tag (max {HEADER_CHARS} chars). "
            'Examples: "Auth method", "Library", "Approach".'
        )
    )
    options: list[QuestionOption] = Field(
        description=(
            f"The available choices for this question. Must have {MIN_OPTIONS}-{MAX_OPTIONS} "
            "options. Each option should be a distinct, mutually exclusive choice (unless "
            "multiSelect is enabled). There should be no 'Other' option, that will be "
            "provided automatically."
        ),
        json_schema_extra={"minItems": MIN_OPTIONS, "maxItems": MAX_OPTIONS},
    )
    multi_select: bool = Field(
        default=False,
        alias="multiSelect",
        description=(
            "Set to true to allow the user to select multiple options instead of just "
            "one. Use when choices are not mutually exclusive."
        ),
    )

    @field_validator("question")
    @classmethod
    def _question(cls, value: str) -> str:
        return _not_blank(value, "the question")

    @field_validator("header")
    @classmethod
    def _header(cls, value: str) -> str:
        _not_blank(value, "the header")
        if len(value) > HEADER_CHARS:
            raise PydanticCustomError(
                "header_too_long",
                "is {size} characters; a header is at most {limit} (a short chip such as "
                '"Library"); put the rest in the question',
                {"size": len(value), "limit": HEADER_CHARS},
            )
        return value

    @field_validator("options")
    @classmethod
    def _options(cls, value: list[QuestionOption]) -> list[QuestionOption]:
        if not MIN_OPTIONS <= len(value) <= MAX_OPTIONS:
            raise PydanticCustomError(
                "option_count",
                "has {count} options; a question has {low} to {high} (the user can always "
                "answer in their own words, so no 'Other' option is needed)",
                {"count": len(value), "low": MIN_OPTIONS, "high": MAX_OPTIONS},
            )
        seen: set[str] = set()
        for option in value:
            key = option.label.strip().casefold()
            if key in seen:
                raise PydanticCustomError(
                    "duplicate_label",
                    "two options are labelled '{label}'; each option needs its own label",
                    {"label": option.label.strip()},
                )
            seen.add(key)
        return value


class AskUserQuestionInput(ToolInput):
    questions: list[Question] = Field(
        description=f"Questions to ask the user ({MIN_QUESTIONS}-{MAX_QUESTIONS} questions)",
        json_schema_extra={"minItems": MIN_QUESTIONS, "maxItems": MAX_QUESTIONS},
    )
    answers: dict[str, str] | None = Field(
        default=None, description="User answers collected by the permission component"
    )

    @field_validator("questions")
    @classmethod
    def _questions(cls, value: list[Question]) -> list[Question]:
        if not MIN_QUESTIONS <= len(value) <= MAX_QUESTIONS:
            raise PydanticCustomError(
                "question_count",
                "has {count} questions; ask {low} to {high} at a time",
                {"count": len(value), "low": MIN_QUESTIONS, "high": MAX_QUESTIONS},
            )
        texts = [question.question for question in value]
        for text in texts:
            if texts.count(text) > 1:
                raise PydanticCustomError(
                    "duplicate_question",
                    "the question '{text}' is asked twice; each question must be different "
                    "(the answers are keyed by its text)",
                    {"text": text},
                )
        return value

    @model_validator(mode="after")
    def _answers_asked(self) -> AskUserQuestionInput:
        if self.answers:
            asked = {question.question for question in self.questions}
            stray = [text for text in self.answers if text not in asked]
            if stray:
                raise PydanticCustomError(
                    "stray_answer",
                    "answers are keyed by the text of a question asked; '{text}' is not one",
                    {"text": stray[0]},
                )
        return self


class QuestionsDisplay(ToolDisplay):
    """The questions (the permission question's preview: what the person answers) and,
    after the call, the answers given, keyed by question text."""

    type: Literal["questions"] = "questions"
    questions: tuple[Question, ...]
    answers: dict[str, str] = Field(default_factory=dict)


class AskUserQuestionTool(Tool):
    name = NAME
    input_model = AskUserQuestionInput
    read_only: ClassVar[bool] = True  # it changes nothing; it may run while planning
    concurrency_safe: ClassVar[bool] = False  # one question to the person at a time
    prompt_file: ClassVar[str | None] = "ask_user_question.md"
    permission_title: ClassVar[str] = "Question for you"

    def summary(self, inp: Any, workspace: Workspace) -> str:
        return ", ".join(question.header for question in inp.questions)

    async def permission_preview(self, inp: Any, workspace: Workspace) -> QuestionsDisplay:
        """The questions themselves: what the person answers."""
        return QuestionsDisplay(questions=tuple(inp.questions))

    async def run(self, inp: Any, ctx: ToolContext) -> ToolResult:
        answers = answered_in_order(inp.questions, inp.answers or {})
        display = QuestionsDisplay(questions=tuple(inp.questions), answers=answers)
        return ToolResult(result_text(answers), display=display)


def answered_in_order(questions: list[Question], answers: Mapping[str, str]) -> dict[str, str]:
    """The answers, in the order the questions were asked, without blank ones."""
    return {
        question.question: answers[question.question]
        for question in questions
        if answers.get(question.question, "").strip()
    }


def result_text(answers: Mapping[str, str]) -> str:
    """What the model reads: Claude Code's words."""
    if not answers:
        return NO_ANSWERS
    pairs = ", ".join(f'"{question}"="{answer}"' for question, answer in answers.items())
    return (
        f"User has answered your questions: {pairs}. "
        "You can now continue with the user's answers in mind."
    )


def joined(labels: list[str]) -> str:
    """A multiSelect question's chosen labels as one answer."""
    return MULTI_JOIN.join(labels)
