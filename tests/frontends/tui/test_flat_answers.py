"""A finished answer in the app becomes one widget, and nothing on screen changes when
it does (issue 25: streaming an answer costs no more CPU than it must).

Every frame composes each widget that covers a line, so a finished answer is drawn by
one widget (no body, no block widgets). The session is played for real: the app's
engine and Anthropic provider against the fake Messages API, answer after answer.
"""

from __future__ import annotations

import pytest

from agentcli.frontends.tui.textual_private import screen_lines
from agentcli.frontends.tui.widgets.streaming_markdown import StreamingMarkdown
from tests.fakeapi import reply, text
from tests.frontends.tui.helpers import idle, make_app, send, wait_for

pytestmark = pytest.mark.timeout(300)

SIZE = (100, 30)
ANSWERS = 4


def answer(n: int) -> str:
    return (
        f"## Finding {n}\n\nThe loader keeps its cache **forever**; part {n} reads it.\n\n"
        "- it is read once\n- nothing clears it\n\n"
        "| caller | cached |\n|---|---|\n| app | yes |\n\n"
        f"```python\ndef load_{n}(path):\n    return cache[path]\n```\n\n"
        f"> Note {n}: the CLI reads it first.\n\nDone with part {n}.\n"
    )


def conversation_cells(app) -> list[list[tuple[str, str]]]:
    """Every cell of the conversation with its style: what a person sees there."""
    region = app.conversation.region
    return [
        [(char, str(segment.style or "")) for segment in strip for char in segment.text][
            region.x : region.right
        ]
        for strip in screen_lines(app.screen)[region.y : region.bottom]
    ]


async def play(fake_api, fake_api_provider, folder, *, flatten: bool) -> list[object]:
    """Four prompts answered; what the conversation shows at the end and a page up."""
    app = make_app(fake_api_provider, folder)
    shown: list[object] = []
    async with app.run_test(size=SIZE) as pilot:
        for n in range(ANSWERS):
            fake_api.enqueue(reply(text(answer(n))))
            await send(pilot, f"prompt number {n}")
            await idle(pilot, app)
        answers = list(app.conversation.query(StreamingMarkdown))
        assert [a.source for a in answers] == [answer(n) for n in range(ANSWERS)]
        if flatten:
            await wait_for(pilot, lambda: all(a.flattened for a in answers), "flat answers")
            for each in answers:
                assert list(each.walk_children()) == []  # one widget, nothing inside
        for _ in range(3):
            await pilot.pause()
        shown.append(conversation_cells(app))
        await pilot.press("pageup")
        for _ in range(3):
            await pilot.pause()
        shown.append(conversation_cells(app))
    return shown


async def test_each_finished_answer_becomes_one_widget_and_looks_the_same(
    fake_api, fake_api_provider, tmp_path, monkeypatch
):
    flat = await play(fake_api, fake_api_provider, tmp_path / "flat", flatten=True)

    async def never(answer: StreamingMarkdown) -> bool:
        return False

    monkeypatch.setattr(StreamingMarkdown, "_flatten", never)
    kept = await play(fake_api, fake_api_provider, tmp_path / "kept", flatten=False)
    # Not a cell, a colour or a line's place differs from the answers kept as widgets.
    assert flat == kept
