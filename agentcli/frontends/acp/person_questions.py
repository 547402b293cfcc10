"""The model's questions to the person (AskUserQuestion) as ACP permission requests.

ACP has no request for a question with free choices: `session/request_permission`
offers one pick among labelled options. So each question is its own request, in
order (1-4 of them), on the call's tool call: its title says the header, the
question and "k of n"; its content lists each option's description; its options
are the question's labels (`allow_once` each), then "Decline to answer"
(`reject_once`). What this covers and what it does not:

- a single-choice question: exactly as asked;
- a multiSelect question: the editor's pick is one option, so the answer is that
  one label (ACP cannot tick several in one request; asking a yes/no per option
  would turn one question into up to four). Said in the title ("pick one here");
- "Other" (the person's own words): ACP's permission request takes no text, so
  it is not offered;
- "Decline" refuses the whole call (the turn goes on, the model is told); the
  client cancelling a request (after `session/cancel`) interrupts the turn, as Esc
  at the app's question does. An option id we did not offer is a decline too.
"""

from __future__ import annotations

from typing import Any

from agentcli.frontends.acp.link import ClientLink
from agentcli.frontends.acp.schema import PermissionResponse
from agentcli.frontends.driver.person import PersonQuestions, answered, declined
from agentcli.permissions.question_models import PermissionAnswer, PermissionRequest
from agentcli.tools.ask_user_question import Question

DECLINE = "decline"
DECLINE_NAME = "Decline to answer"
MULTI_NOTE = "pick one here"


def option_id(index: int) -> str:
    return f"answer_{index + 1}"


def question_params(
    session_id: str, request: PermissionRequest, asked: PersonQuestions, index: int
) -> dict[str, Any]:
    """The params of the `session/request_permission` for question `index`."""
    question = asked.questions[index]
    title = f"{question.header}: {question.question}"
    notes = [f"{index + 1} of {len(asked.questions)}"] if len(asked.questions) > 1 else []
    if question.multi_select:
        notes.append(MULTI_NOTE)
    if asked.asked_by is not None:
        notes.append(f"asked by {asked.asked_by.label()}")
    if notes:
        title += f" ({', '.join(notes)})"
    options = [
        {"optionId": option_id(i), "name": option.label, "kind": "allow_once"}
        for i, option in enumerate(question.options)
    ]
    options.append({"optionId": DECLINE, "name": DECLINE_NAME, "kind": "reject_once"})
    described = "\n".join(f"- {option.label}: {option.description}" for option in question.options)
    return {
        "sessionId": session_id,
        "toolCall": {
            "toolCallId": request.tool_use_id,
            "title": title,
            "rawInput": request.input,
            "content": [{"type": "content", "content": {"type": "text", "text": described}}],
        },
        "options": options,
    }


def choice_of(response: Any, question: Question) -> str | PermissionAnswer:
    """The label chosen, or the answer that ends the asking (declined, interrupted)."""
    outcome = PermissionResponse.model_validate(response).outcome
    if outcome.outcome == "cancelled":
        return PermissionAnswer(allow=False, interrupt=True)
    for i, option in enumerate(question.options):
        if outcome.option_id == option_id(i):
            return option.label
    return declined()


async def ask_editor(
    link: ClientLink, request: PermissionRequest, asked: PersonQuestions
) -> PermissionAnswer:
    """Each question in turn through the editor; the answers, or how the asking ended.
    Raises what `link.request` raises (the driver's answer() handles it)."""
    answers: dict[str, str] = {}
    for index, question in enumerate(asked.questions):
        params = question_params(link.session_id, request, asked, index)
        choice = choice_of(await link.request("session/request_permission", params), question)
        if isinstance(choice, PermissionAnswer):
            return choice
        answers[question.question] = choice
    return answered(request, answers)
