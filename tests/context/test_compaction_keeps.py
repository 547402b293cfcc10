"""Compaction keeps what matters: several compactions in a row against the fake API.

The session is built the way a front end builds it (`bootstrap.build_engine`: the
settings, the memory files, the real tools) and talks to the fake Messages API,
which validates every request as the real one does. The person's first prompt says
"never edit vendor/"; the agent reads files, has its plan approved, keeps a todo
list and edits a file; then many more prompts fill the context again and again.
After each compaction the next request must still carry, verbatim: the memory
files (read again, so an edit made meanwhile shows), the first prompt and the
latest ones, the todo list, the files read and changed, the approved plan, and the
model's summary.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agentcli.engine.compaction import SUMMARY_REQUEST, Compacted
from agentcli.engine.events import Event, Notice, TurnEnded
from agentcli.permissions.question_models import PermissionAnswer, PermissionRequest
from agentcli.providers.anthropic import AnthropicProvider
from agentcli.providers.retry import RetryPolicy
from agentcli.wiring.bootstrap import Options, build_engine
from tests.engine.harness import answer_questions
from tests.fakeapi import FakeAnthropic, reply, text, tool_use

FIRST_PROMPT = "Never edit vendor/. Fix the tokenizer in src/parser.py, plan it first."
PLAN = "1. Read src/parser.py\n2. Make `tokenize` skip blank lines\n3. Run the tests"
TODOS = [
    {"content": "Fix tokenize", "status": "in_progress", "activeForm": "Fixing tokenize"},
    {"content": "Run the tests", "status": "pending", "activeForm": "Running the tests"},
]
LATER_PROMPTS = [f"Step {n}: what does data/file_{n}.txt say? Be brief." for n in range(2, 16)]
FILLER = "lorem ipsum dolor sit amet, consectetur adipiscing elit\n" * 110  # ~1,500 tokens


def later_prompt(n: int) -> str:
    return LATER_PROMPTS[n - 2]


class Model:
    """The fake model: answers each request by what it asks, so the compactions (which
    come whenever the context is full) can fall anywhere in the script."""

    def __init__(self, project: Path) -> None:
        self.project = project
        self.summaries = 0
        self.steps: list[Any] = []
        self.prompt = ""  # the prompt being answered
        self.compacted_during: list[str] = []  # the prompt of each compaction's turn

    def __call__(self, body: dict[str, Any]) -> Any:
        last = body["messages"][-1]
        if SUMMARY_REQUEST[:60] in json.dumps(last):
            self.summaries += 1
            self.compacted_during.append(self.prompt)
            return reply(text(f"SUMMARY NUMBER {self.summaries}: the work so far."))
        return self.steps.pop(0)

    def first_prompt_script(self) -> None:
        parser = str(self.project / "src" / "parser.py")
        edit = {"file_path": parser, "old_string": "return lines", "new_string": "return kept"}
        self.prompt = FIRST_PROMPT
        self.steps += [
            reply(text("Let me look."), tool_use("Read", {"file_path": parser})),
            reply(tool_use("ExitPlanMode", {"plan": PLAN})),
            reply(tool_use("TodoWrite", {"todos": TODOS})),
            reply(tool_use("Edit", edit)),
            reply(text("Fixed tokenize.")),
        ]

    def later_script(self, n: int) -> None:
        path = str(self.project / "data" / f"file_{n}.txt")
        self.prompt = later_prompt(n)
        self.steps += [
            reply(tool_use("Read", {"file_path": path})),
            reply(text(f"file_{n} is filler.")),
        ]


async def allow(request: PermissionRequest) -> PermissionAnswer:
    return PermissionAnswer(allow=True)


async def run(engine, prompt: str) -> list[Event]:
    events = []
    async for event in engine.submit_message(prompt):
        answer_questions(event, allow)
        events.append(event)
    assert isinstance(events[-1], TurnEnded)
    return events


def texts_of(body: dict[str, Any]) -> list[str]:
    """Every text block of the request's messages (not tool results)."""
    found = []
    for message in body["messages"]:
        content = message["content"]
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        found += [b["text"] for b in blocks if b.get("type") == "text"]
    return found


def bodies_of(sent: list[str]) -> list[str]:
    """Each text as it stands alone: a block, or a carried block's text after its
    header line (the person's words exactly, nothing added or cut)."""
    return [t for t in sent] + [t.partition("\n\n")[2] for t in sent]


def system_of(body: dict[str, Any]) -> str:
    return "\n".join(b["text"] for b in body.get("system", []))


@pytest.fixture
def project(tmp_path: Path, monkeypatch) -> Path:
    monkeypatch.setenv("AGENTCLI_CONTEXT_WINDOW", "12000")
    root = tmp_path / "proj"
    (root / "src").mkdir(parents=True)
    (root / "data").mkdir()
    (root / "docs").mkdir()
    (root / "vendor").mkdir()
    (root / "src" / "parser.py").write_text("def tokenize(lines):\n    return lines\n")
    for n in range(2, 16):
        (root / "data" / f"file_{n}.txt").write_text(f"file {n}\n{FILLER}\n")
    (root / "AGENTS.md").write_text(
        "MEMORY RULE: run make lint before you finish.\n@docs/style.md\n"
    )
    (root / "docs" / "style.md").write_text("IMPORTED RULE: four-space indents.\n")
    return root


def engine_for(project: Path, server: FakeAnthropic, resumed=None, **options: Any):
    """The session's engine as a front end builds it (`resumed`: a session to go on with)."""
    provider = AnthropicProvider(
        api_key="test-key", base_url=server.base_url, retry=RetryPolicy(max_retries=0)
    )
    tools = ["Read", "Edit", "Write", "TodoWrite", "ExitPlanMode"]
    chosen = Options(cwd=project, tools=tools, trusted=True, **options)
    return build_engine(chosen, provider, resumed)


def after_compactions(server: FakeAnthropic) -> list[dict[str, Any]]:
    """The body of each request that came right after a compaction's summary."""
    bodies = [r.body for r in server.requests]
    return [
        bodies[i + 1]
        for i, body in enumerate(bodies[:-1])
        if SUMMARY_REQUEST[:60] in json.dumps(body["messages"][-1])
    ]


async def test_three_compactions_in_a_row_keep_the_prompts_memory_todos_files_and_plan(
    fake_api, project
):
    model = Model(project)
    fake_api.default = model
    engine = engine_for(project, fake_api, permission_mode="plan")

    model.first_prompt_script()
    events = await run(engine, FIRST_PROMPT)
    assert engine.gate.policy.mode.value == "default"  # the plan was approved
    notices: list[Notice] = [e for e in events if isinstance(e, Notice)]
    for n in range(2, 16):
        if n == 9:  # the person changes the memory file during the session
            (project / "AGENTS.md").write_text(
                "MEMORY RULE, EDITED: run make lint and make test.\n@docs/style.md\n"
            )
        model.later_script(n)
        events = await run(engine, later_prompt(n))
        notices += [e for e in events if isinstance(e, Notice)]

    assert all(r.status == 200 for r in fake_api.requests), [
        r.error for r in fake_api.requests if r.status != 200
    ]
    after = after_compactions(fake_api)
    assert len(after) >= 3, f"only {len(after)} compactions"
    compacted = [n for n in notices if isinstance(n, Compacted)]
    assert len(compacted) == len(after)

    for number, body in enumerate(after, start=1):
        sent = texts_of(body)
        joined = "\n".join(sent)
        system = system_of(body)
        # The memory files, imports included, in the system prompt.
        assert "IMPORTED RULE: four-space indents." in system
        # The first prompt, verbatim, as a text block of its own: never paraphrased.
        assert FIRST_PROMPT in bodies_of(sent), f"compaction {number}: the first prompt is gone"
        # The model's latest summary, and only the latest.
        assert f"SUMMARY NUMBER {number}:" in joined
        assert f"SUMMARY NUMBER {number - 1}:" not in joined
        # The todo list, the files read and changed, the approved plan.
        for todo in TODOS:
            assert todo["content"] in joined
        assert str(project / "src" / "parser.py") in joined
        assert PLAN in joined
        # The prompt being answered is there verbatim (kept or carried).
        assert model.compacted_during[number - 1] in bodies_of(sent)

    # Memory is read again at each compaction: the edit made at step 9 shows after the
    # next compaction, and the old text is gone from it.
    last_system = system_of(after[-1])
    assert "MEMORY RULE, EDITED: run make lint and make test." in last_system
    assert "MEMORY RULE: run make lint before you finish." not in last_system
    # The latest prompts the budget holds are carried verbatim too, oldest first.
    final = texts_of(after[-1])
    carried_steps = [t.partition("\n\n")[2] for t in final if t.startswith("A later prompt")]
    assert all(step in LATER_PROMPTS for step in carried_steps)
    assert carried_steps == sorted(carried_steps, key=LATER_PROMPTS.index)
    assert len(carried_steps) >= 2
    # The files read in summarised turns are named.
    final_joined = "\n".join(final)
    assert str(project / "data" / "file_2.txt") in final_joined

    # What each compaction kept is told: the notice lists it.
    report = compacted[-1].text
    assert "Kept verbatim" in report and "first prompt" in report
    assert "AGENTS.md" in report and "todo list" in report and "plan" in report


async def test_a_compaction_that_fails_carries_nothing_and_changes_nothing(fake_api, project):
    """The carried parts come with a successful summary only: a failed one leaves the
    conversation exactly as it was (the next request is the old conversation)."""

    def broken_summary(body: dict[str, Any]) -> Any:
        if SUMMARY_REQUEST[:60] in json.dumps(body["messages"][-1]):
            from tests.fakeapi import http_error

            return http_error(400, "summary refused")
        return model(body)

    model = Model(project)
    fake_api.default = broken_summary
    engine = engine_for(project, fake_api)
    for n in range(2, 9):
        model.later_script(n)
        await run(engine, later_prompt(n))
    assert engine.compactor is not None and engine.compactor.compactions == 0
    assert texts_of(fake_api.requests[-1].body)[0] == later_prompt(2)
    assert all(
        r.status == 200
        for r in fake_api.requests
        if SUMMARY_REQUEST[:60] not in json.dumps(r.body["messages"][-1])
    )


async def test_what_a_compaction_carried_is_carried_again_after_a_resume(fake_api, project):
    """The carried blocks are in the transcript's summary message: a resumed session's
    next compaction reads them back, so the first prompt and the plan still bind."""
    from agentcli.session.resume import resolve_resumed
    from agentcli.wiring.composition import finish_session

    model = Model(project)
    fake_api.default = model
    engine = engine_for(project, fake_api, permission_mode="plan")
    model.first_prompt_script()
    await run(engine, FIRST_PROMPT)
    n = 2
    while model.summaries == 0:
        model.later_script(n)
        await run(engine, later_prompt(n))
        n += 1
    finish_session(engine)

    resumed = resolve_resumed(project, continue_latest=True)
    assert resumed is not None
    engine = engine_for(project, fake_api, resumed)
    while model.summaries == 1:
        model.later_script(n)
        await run(engine, later_prompt(n))
        n += 1

    body = after_compactions(fake_api)[-1]
    sent = texts_of(body)
    assert FIRST_PROMPT in bodies_of(sent)
    assert "SUMMARY NUMBER 2:" in "\n".join(sent)
    assert PLAN in bodies_of(sent)
    assert TODOS[0]["content"] in "\n".join(sent)
    assert all(r.status == 200 for r in fake_api.requests)
