"""Resuming draws the transcript's tail first (session/tail_first.py), then reads the rest.

The tail is made much shorter than the session here, so every test crosses the
seam between what was drawn first and what was read after: the whole history
is there once, in order, reachable with the keys; a prompt typed before the
rest was read still goes with the whole context (the fake API sees it); a
transcript with a torn last line and bytes that are not UTF-8 resumes; and
`--resume ID` takes the same path. The session is recorded for real.
"""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from agentcli.cli.main import build_parser
from agentcli.frontends.tui import history_view
from agentcli.frontends.tui.app import AgentApp
from agentcli.frontends.tui.widgets.conversation import UserMessageView
from agentcli.frontends.tui.widgets.streaming_markdown import StreamingMarkdown
from agentcli.session import records, tail_first
from agentcli.session.loader import load_session
from agentcli.session.store import latest_session_path
from tests.fakeapi import reply
from tests.fakeapi import text as api_text
from tests.frontends.tui.helpers import send, type_text, wait_for
from tests.frontends.tui.test_resume import notes
from tests.support.sessions import record_reading_session

pytestmark = pytest.mark.timeout(300)  # paging through every item, on 2 busy cores

PROMPTS = 24
TAIL_LINES = 12  # a few prompts' worth: the rest is read after the tail is drawn


@pytest.fixture(autouse=True)
def short_tail(monkeypatch):
    monkeypatch.setattr(tail_first, "TAIL_LINES", TAIL_LINES)


@pytest.fixture
def api(fake_api, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", fake_api.base_url)
    monkeypatch.setenv("AGENTCLI_RETRY_BASE_DELAY_MS", "0")
    return fake_api


async def record(project: Path) -> str:
    """PROMPTS prompts, each answered by a Read and an answer; the session's id."""
    return await record_reading_session(project, PROMPTS)


def app_on(project: Path, *argv: str, provider: bool = False) -> AgentApp:
    return AgentApp(
        build_parser().parse_args(list(argv)),
        cwd=project,
        load_provider=provider,
        remember_theme=False,
        permission_guard_s=0,
    )


def on_screen(app: AgentApp, wanted: str) -> bool:
    return any(
        view.text == wanted and view.region.area > 0
        for view in app.conversation.query(UserMessageView)
    )


def visible_prompts(app: AgentApp) -> list[str]:
    return [
        view.text
        for view in app.conversation.query(UserMessageView)
        if view.region.area > 0 and view.text.startswith("prompt number")
    ]


async def resumed(pilot, app: AgentApp) -> None:
    await wait_for(pilot, lambda: any("Resumed conversation" in n for n in notes(app)))
    await pilot.pause()


async def every_prompt_once_in_order(pilot, app: AgentApp) -> None:
    """From the first prompt down to the newest, page by page: each prompt shows, in
    order, and none twice (the seam between the tail and the rest has no hole and
    no copy)."""
    await pilot.press("ctrl+home")
    await wait_for(pilot, lambda: on_screen(app, "prompt number 0"), "the first prompt")
    seen: list[str] = []
    for _ in range(300):
        for prompt in visible_prompts(app):
            if prompt not in seen:
                seen.append(prompt)
        if on_screen(app, f"prompt number {PROMPTS - 1}"):
            break
        await pilot.press("pagedown")
        await pilot.pause()
    assert seen == [f"prompt number {n}" for n in range(PROMPTS)]
    mounted = [v.text for v in app.conversation.query(UserMessageView)]
    assert len(mounted) == len(set(mounted))


def hold_the_rest(monkeypatch, why: str) -> threading.Event:
    """Hold the read of the transcript in front of its tail (and so the engine's build)
    until the event returned is set; `why` names what the test waits for meanwhile."""
    let_through = threading.Event()
    complete = tail_first.TailFirst.complete

    def complete_when_let(self):
        assert let_through.wait(60), f"the rest was never let be read: {why}"
        return complete(self)

    monkeypatch.setattr(tail_first.TailFirst, "complete", complete_when_let)
    return let_through


def hold_the_preparation(monkeypatch) -> threading.Event:
    """Hold the loader's preparation of the items above the tail (`finish_tail`, and so
    the fill that waits for it) until the event returned is set."""
    let_through = threading.Event()
    finish_tail = history_view.finish_tail

    def finish_when_let(tail):
        assert let_through.wait(60), "the tail's items were never let be prepared"
        return finish_tail(tail)

    monkeypatch.setattr(history_view, "finish_tail", finish_when_let)
    return let_through


async def test_the_tail_is_drawn_then_the_whole_history_is_reachable_once(tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    session_id = await record(project)
    app = app_on(project, "--continue")
    async with app.run_test(size=(100, 30)) as pilot:
        await resumed(pilot, app)
        assert app.engine.session_id == session_id
        assert len(app.engine.messages) == PROMPTS * 4  # the whole context, not the tail's
        await wait_for(pilot, lambda: on_screen(app, f"prompt number {PROMPTS - 1}"))
        assert not on_screen(app, "prompt number 0")
        await every_prompt_once_in_order(pilot, app)
        assert app.focused is app.prompt


async def test_resume_by_id_takes_the_same_path(tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    session_id = await record(project)
    app = app_on(project, "--resume", session_id[:8])
    async with app.run_test(size=(100, 30)) as pilot:
        await resumed(pilot, app)
        assert app.engine.session_id == session_id
        await wait_for(pilot, lambda: on_screen(app, f"prompt number {PROMPTS - 1}"))
        await pilot.press("home")
        await wait_for(pilot, lambda: on_screen(app, "prompt number 0"), "the first prompt")
        assert app.focused is app.prompt


async def test_a_prompt_typed_before_the_rest_is_read_goes_with_the_whole_context(
    tmp_path, api, monkeypatch
):
    project = tmp_path / "project"
    project.mkdir()
    await record(project)
    api.enqueue(reply(api_text("Going on.")))
    typed = hold_the_rest(monkeypatch, "the prompt was never typed")
    app = app_on(project, "--continue", provider=True)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: on_screen(app, f"prompt number {PROMPTS - 1}"), "the tail")
        assert app.engine is None  # the rest is not read yet
        await send(pilot, "and now the next part")
        typed.set()
        await wait_for(pilot, lambda: len(api.requests) == 1, "the request")
        sent = api.requests[0].messages
        prompts = [
            block["text"]
            for message in sent
            if message["role"] == "user" and isinstance(message["content"], list)
            for block in message["content"]
            if block.get("type") == "text" and block["text"].startswith(("prompt", "and now"))
        ]
        assert prompts == [f"prompt number {n}" for n in range(PROMPTS)] + ["and now the next part"]
        assert len(sent) == PROMPTS * 4 + 1


async def test_the_rest_is_read_once_the_newest_answer_is_drawn_as_it_stays(tmp_path, monkeypatch):
    """A finished answer is drawn from its lines once its hidden blocks are rendered
    and gone: the loader reads the rest of the transcript (and imports the engine's
    modules) after that, not beside the frames that draw it."""
    project = tmp_path / "project"
    project.mkdir()
    await record(project)
    seen: list[bool] = []
    complete = tail_first.TailFirst.complete
    app = app_on(project, "--continue")

    def complete_and_look(self):
        answers = list(app.conversation.query(StreamingMarkdown))  # the fill adds above it
        seen.append(answers[-1].flattened if answers else False)
        return complete(self)

    monkeypatch.setattr(tail_first.TailFirst, "complete", complete_and_look)
    async with app.run_test(size=(100, 30)) as pilot:
        await resumed(pilot, app)
    assert seen == [True]  # the newest answer, drawn as it stays before the rest is read


async def test_the_folders_files_are_listed_once_the_session_is_read(tmp_path, monkeypatch):
    """Listing the folder for `@` runs ripgrep (a core, and a moment of the loop to
    start it): a resume lists it once its transcript is read, not while its newest
    messages are drawn."""
    project = tmp_path / "project"
    project.mkdir()
    await record(project)
    read = hold_the_rest(monkeypatch, "the listing was checked first")
    app = app_on(project, "--continue")
    async with app.run_test(size=(100, 30)) as pilot:
        try:
            await wait_for(pilot, lambda: on_screen(app, f"prompt number {PROMPTS - 1}"))
            for _ in range(10):
                await pilot.pause()
            assert app.prompt_flow.files is None  # not listed while the rest waits
        finally:
            read.set()
        await resumed(pilot, app)
        await wait_for(pilot, lambda: app.prompt_flow.files is not None, "the files listed")
        assert "config.py" in app.prompt_flow.files


async def test_a_torn_last_line_and_bad_bytes_resume(tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    await record(project)
    path = latest_session_path(project)
    assert path is not None
    lines = path.read_bytes().split(b"\n")
    lines.insert(len(lines) - 3, b'{"type": "user", "message": \xff\xfe\x80 broken')
    path.write_bytes(b"\n".join(lines) + b'{"type": "assistant", "message": {"ro')
    app = app_on(project, "--continue")
    async with app.run_test(size=(100, 30)) as pilot:
        await resumed(pilot, app)
        assert any("cut off" in n for n in notes(app))
        assert any("unreadable" in n for n in notes(app))
        await wait_for(pilot, lambda: on_screen(app, f"prompt number {PROMPTS - 1}"))
        await every_prompt_once_in_order(pilot, app)


async def test_a_rewind_before_the_tail_is_drawn_from_the_whole_file(tmp_path):
    """The tail alone would show the prompts the rewind took away: the whole file's
    history replaces it."""
    project = tmp_path / "project"
    project.mkdir()
    session_id = await record(project)
    path = latest_session_path(project)
    assert path is not None
    prompt_ids = list(load_session(path).prompts)
    rewind = records.rewind_record(session_id=session_id, parent=None, prompt_id=prompt_ids[3])
    with path.open("a") as out:
        out.write(records.dumps(rewind))
    app = app_on(project, "--continue")
    async with app.run_test(size=(100, 30)) as pilot:
        await resumed(pilot, app)
        await wait_for(pilot, lambda: on_screen(app, "prompt number 2"), "the last prompt kept")
        await wait_for(pilot, lambda: app.conversation.hidden_count() == (0, 0), "all drawn")
        shown = [v.text for v in app.conversation.query(UserMessageView)]
        assert shown == ["prompt number 0", "prompt number 1", "prompt number 2"]
        assert len(app.engine.messages) == 3 * 4


async def test_typing_while_the_history_fills_in_loses_nothing(tmp_path, monkeypatch):
    """Keys typed from the moment the newest item shows, while the items above it are
    built an item a frame and before the rest of the file is read, all land in the
    prompt, in order; the whole history is there after, and the prompt kept its focus."""
    project = tmp_path / "project"
    project.mkdir()
    await record(project)
    read_rest = hold_the_rest(monkeypatch, "the typing was checked first")
    app = app_on(project, "--continue")
    typed = "keep every key"
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: on_screen(app, f"prompt number {PROMPTS - 1}"), "the tail")
        await type_text(pilot, typed[:6])
        read_rest.set()
        await type_text(pilot, typed[6:])
        await resumed(pilot, app)
        assert app.prompt.text == typed
        await every_prompt_once_in_order(pilot, app)
        assert app.prompt.text == typed and app.focused is app.prompt


async def test_the_items_above_the_tail_fill_in_once_the_loader_prepared_them(
    tmp_path, monkeypatch
):
    """The loader works out what the items above the newest need (their summaries, the
    module that draws a pane's result) right after the first frame; until it has,
    nothing is built above the newest item, so no build does that work on the loop
    while a key waits. Then they fill in, before the rest of the file is read."""
    project = tmp_path / "project"
    project.mkdir()
    await record(project)
    read_rest = hold_the_rest(monkeypatch, "the fill was checked first")
    prepared = hold_the_preparation(monkeypatch)
    app = app_on(project, "--continue")
    async with app.run_test(size=(100, 30)) as pilot:
        conv = app.conversation
        try:
            await wait_for(pilot, lambda: conv.item_count() >= 1, "the newest item")
            for _ in range(20):
                await pilot.pause()
            assert conv.item_count() == 1  # nothing built above it meanwhile
            prepared.set()
            await wait_for(pilot, lambda: conv.item_count() > 4, "the items above, filled in")
            assert on_screen(app, f"prompt number {PROMPTS - 1}")
            assert app.engine is None  # before the rest is read
        finally:
            prepared.set()
            read_rest.set()
        await resumed(pilot, app)


async def test_a_page_up_before_the_rest_is_read_shows_what_is_above(tmp_path, monkeypatch):
    project = tmp_path / "project"
    project.mkdir()
    await record(project)
    read_rest = hold_the_rest(monkeypatch, "the page up was checked first")
    app = app_on(project, "--continue")
    async with app.run_test(size=(100, 30)) as pilot:
        try:
            await wait_for(pilot, lambda: app.conversation.item_count() >= 1, "the newest item")
            await pilot.press("pageup")
            await wait_for(
                pilot, lambda: on_screen(app, f"prompt number {PROMPTS - 1}"), "the prompt above"
            )
        finally:
            read_rest.set()
        await resumed(pilot, app)
        await every_prompt_once_in_order(pilot, app)


async def test_frames_go_on_while_the_newest_item_is_drawn(tmp_path, monkeypatch):
    """The newest item of a resume is drawn with the frames going on (a key typed
    meanwhile is echoed before the answer's blocks are all rendered): it is below
    everything, so growing moves nothing. (Items built above it are drawn in one
    frame, so what is on screen never jumps.)"""
    project = tmp_path / "project"
    project.mkdir()
    await record(project)
    read_rest = hold_the_rest(monkeypatch, "the frames were checked first")
    prepared = hold_the_preparation(monkeypatch)
    app = app_on(project, "--continue")
    batches: list[str] = []
    batch_update = app.batch_update

    def counted():
        batches.append("frames held")
        return batch_update()

    monkeypatch.setattr(app, "batch_update", counted)
    async with app.run_test(size=(100, 30)) as pilot:
        batches.clear()  # the app's own start-up holds its first frames
        conv = app.conversation
        try:
            newest = lambda: [w for w in conv.query(StreamingMarkdown) if w.flattened]  # noqa: E731
            await wait_for(pilot, newest, "the newest answer, drawn")
            assert batches == []
        finally:
            prepared.set()
            read_rest.set()
        await resumed(pilot, app)


async def test_no_collection_walks_the_whole_session_once_it_is_read(tmp_path, monkeypatch):
    """The whole file's objects are frozen out of the cyclic collector before it is
    turned on again after the read: a collection set off in between (by any thread's
    allocation) would walk all of them, holding the app's loop, and every key, meanwhile."""
    import gc

    from agentcli.frontends.tui import collection

    project = tmp_path / "project"
    project.mkdir()
    await record(project)
    read: list[int] = []
    frozen_when_on_again: list[bool] = []
    complete = tail_first.TailFirst.complete

    def complete_and_mark(self):
        loaded = complete(self)
        read.append(gc.get_freeze_count())
        return loaded

    class Gc:
        """The collector as collection.py sees it; `enable` notes whether the read's
        objects are frozen by then."""

        def __getattr__(self, name):
            return getattr(gc, name)

        def enable(self):
            if read and not frozen_when_on_again:
                frozen_when_on_again.append(gc.get_freeze_count() > read[0])
            gc.enable()

    monkeypatch.setattr(tail_first.TailFirst, "complete", complete_and_mark)
    monkeypatch.setattr(collection, "gc", Gc())
    app = app_on(project, "--continue")
    async with app.run_test(size=(100, 30)) as pilot:
        await resumed(pilot, app)
    assert read and frozen_when_on_again == [True]
