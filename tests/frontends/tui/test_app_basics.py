"""The first screen, sending, streaming, the multi-line prompt and history."""

from __future__ import annotations

from textual import events

from agentcli import __version__
from agentcli.engine.events import TurnEnded
from agentcli.frontends.tui.history import PromptHistory
from agentcli.frontends.tui.widgets.conversation import UserMessageView
from agentcli.frontends.tui.widgets.prompt_input import PromptInput
from tests.engine.scripted import Response, ScriptedProvider, text
from tests.frontends.tui.helpers import idle, make_app, send, texts, type_text, wait_for

MARKDOWN = (
    "# Title\n\n- one\n- two\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n```python\nprint('x')\n```\n"
)


async def test_first_screen_shows_banner_and_focused_prompt(tmp_path):
    app = make_app(ScriptedProvider(), tmp_path)
    async with app.run_test() as pilot:
        await pilot.pause()
        banner = str(app.banner.render())
        assert "agentcli" in banner and __version__ in banner
        assert str(tmp_path) in banner and "claude-test" in banner
        assert isinstance(app.focused, PromptInput)
        assert "Type a message" in str(app.prompt.placeholder)
        assert "claude-test" in str(app.status_bar.render())


async def test_message_is_sent_and_answer_streams_as_markdown(tmp_path):
    provider = ScriptedProvider(Response([text(MARKDOWN)]))
    app = make_app(provider, tmp_path)
    async with app.run_test() as pilot:
        await send(pilot, "hello")
        await idle(pilot, app)
        users = list(app.conversation.query(UserMessageView))
        assert [u.text for u in users] == ["hello"]
        assert app.conversation.last_answer_source == MARKDOWN
        assert app.engine.messages[-1]["content"] == [text(MARKDOWN)]
        assert app.prompt.text == ""
        assert provider.requests[0].messages[0]["content"] == [text("hello")]


async def test_shift_enter_and_ctrl_j_insert_newlines_enter_sends(tmp_path):
    provider = ScriptedProvider(Response([text("ok")]))
    app = make_app(provider, tmp_path)
    async with app.run_test() as pilot:
        await pilot.press("a", "shift+enter", "b", "ctrl+j", "c")
        assert app.prompt.text == "a\nb\nc"
        assert not app.engine.messages
        await pilot.press("enter")
        await idle(pilot, app)
        assert app.engine.messages[0]["content"] == [text("a\nb\nc")]


async def test_pasting_a_short_block_inserts_it_without_sending(tmp_path):
    app = make_app(ScriptedProvider(Response([text("ok")])), tmp_path)
    block = "line one\nline two\n\nline four\n"
    async with app.run_test() as pilot:
        app.post_message(events.Paste(block))  # as the driver delivers a paste
        await wait_for(pilot, lambda: app.prompt.text == block, "the paste")
        await pilot.pause()
        assert not app.engine.messages and not app.busy
        await pilot.press("enter")
        await idle(pilot, app)
        assert app.engine.messages[0]["content"] == [text(block)]


async def test_a_long_paste_folds_in_the_prompt_and_the_conversation_but_reaches_the_model(
    tmp_path,
):
    from agentcli.frontends.tui.widgets.conversation import UserMessageView

    app = make_app(ScriptedProvider(Response([text("ok")])), tmp_path)
    log = "".join(f"log line {n}\n" for n in range(1, 5001))
    async with app.run_test() as pilot:
        await type_text(pilot, "why does this fail? ")
        app.post_message(events.Paste(log))
        await wait_for(pilot, lambda: "[Pasted" in app.prompt.text, "the placeholder")
        assert app.prompt.text == "why does this fail? [Pasted text #1 +5000 lines]"
        await type_text(pilot, " thanks")
        await pilot.press("enter")
        await idle(pilot, app)
        sent = app.engine.messages[0]["content"]
        assert sent == [text(f"why does this fail? {log} thanks")]
        (shown,) = texts(app, UserMessageView)
        assert shown == "> why does this fail? [Pasted text #1 +5000 lines] thanks"


async def test_pastes_are_numbered_and_a_placeholder_edited_by_hand_is_sent_as_typed(tmp_path):
    app = make_app(ScriptedProvider(Response([text("ok")])), tmp_path)
    first, second = "a\n" * 20, "b" * 2000
    async with app.run_test() as pilot:
        app.post_message(events.Paste(first))
        await wait_for(pilot, lambda: "#1" in app.prompt.text, "the first placeholder")
        app.post_message(events.Paste(second))
        await wait_for(pilot, lambda: "#2" in app.prompt.text, "the second placeholder")
        assert app.prompt.text == "[Pasted text #1 +20 lines][Pasted text #2 +1 line]"
        await pilot.press("backspace")  # breaks the second placeholder
        await pilot.press("enter")
        await idle(pilot, app)
        assert app.engine.messages[0]["content"] == [text(first + "[Pasted text #2 +1 line")]


async def test_a_long_history_entry_comes_back_folded_and_is_sent_whole(tmp_path):
    provider = ScriptedProvider(Response([text("1")]), Response([text("2")]))
    app = make_app(provider, tmp_path)
    log = "x\n" * 300
    async with app.run_test() as pilot:
        app.post_message(events.Paste(log))
        await wait_for(pilot, lambda: "[Pasted" in app.prompt.text, "the placeholder")
        await pilot.press("enter")
        await idle(pilot, app)
        assert app.history.entries[-1] == log  # nothing the person sent is lost
        await pilot.press("up")
        assert app.prompt.text == "[Pasted text #2 +300 lines]"
        await pilot.press("enter")
        await idle(pilot, app)
        assert app.engine.messages[-2]["content"] == [text(log)]


async def test_up_and_down_walk_history_and_keep_the_draft(tmp_path):
    provider = ScriptedProvider(Response([text("1")]), Response([text("2")]))
    app = make_app(provider, tmp_path)
    async with app.run_test() as pilot:
        await send(pilot, "first")
        await idle(pilot, app)
        await send(pilot, "second")
        await idle(pilot, app)
        await type_text(pilot, "draft")
        await pilot.press("up")
        assert app.prompt.text == "second"
        await pilot.press("up")
        assert app.prompt.text == "first"
        await pilot.press("down")
        assert app.prompt.text == "second"
        await pilot.press("down")
        assert app.prompt.text == "draft"
    # kept per project across runs
    assert PromptHistory.load(tmp_path).entries == ["first", "second"]
    again = make_app(ScriptedProvider(), tmp_path)
    async with again.run_test() as pilot:
        await wait_for(pilot, lambda: again.history.entries, "history to load")
        await pilot.press("up")
        assert again.prompt.text == "second"


async def test_message_typed_before_the_provider_is_ready_is_queued_then_sent(tmp_path):
    provider = ScriptedProvider(Response([text("late answer")]))
    app = make_app(None, tmp_path, load_provider=False)
    async with app.run_test() as pilot:
        await send(pilot, "early")
        await pilot.pause()
        assert app.turns.queue == ["early"] and not app.engine.messages
        app.engine.connect(provider)
        app.sessions.engine_ready()
        await wait_for(pilot, lambda: app.engine.messages, "the queued message")
        await idle(pilot, app)
        assert app.engine.messages[0]["content"] == [text("early")]
        assert app.conversation.last_answer_source == "late answer"


async def test_first_prompt_argument_is_sent_at_start(tmp_path):
    provider = ScriptedProvider(Response([text("hi back")]))
    app = make_app(provider, tmp_path, first_prompt="hi from argv")
    async with app.run_test() as pilot:
        await wait_for(pilot, lambda: app.conversation.last_answer_source, "the answer")
        assert app.engine.messages[0]["content"] == [text("hi from argv")]


async def test_no_api_key_shows_the_error_and_the_app_stays_usable(tmp_path, monkeypatch):
    from types import SimpleNamespace

    from agentcli.frontends.tui.app import AgentApp

    monkeypatch.chdir(tmp_path)
    args = SimpleNamespace(
        model=None,
        permission_mode=None,
        allowed_tools=None,
        disallowed_tools=None,
        add_dirs=[],
        max_turns=None,
    )
    app = AgentApp(args, cwd=tmp_path, remember_theme=False)
    async with app.run_test() as pilot:
        await wait_for(pilot, lambda: app.provider_error, "the provider error")
        assert "ANTHROPIC_API_KEY" in app.provider_error
        notes = [str(n.render()) for n in app.conversation.query(".note")]
        assert any("ANTHROPIC_API_KEY" in n for n in notes)
        await send(pilot, "/status")
        await pilot.pause()
        assert "Session" in str(app.conversation.children[-1].source)
        await send(pilot, "are you there")
        await pilot.pause()
        assert app.turns.queue == ["are you there"]  # kept, not lost


async def test_turn_end_event_reaches_the_view(tmp_path):
    provider = ScriptedProvider(Response([text("done")]))
    app = make_app(provider, tmp_path)
    seen = []
    original = app.view.show if hasattr(app, "view") else None
    async with app.run_test() as pilot:
        original = app.view.show

        async def spy(event):
            seen.append(event)
            await original(event)

        app.view.show = spy
        await send(pilot, "go")
        await idle(pilot, app)
    assert isinstance(seen[-1], TurnEnded)


async def test_an_answer_that_arrives_in_one_chunk_is_rendered(tmp_path):
    provider = ScriptedProvider(Response([text("Short and whole.")]), chunk=10_000)
    app = make_app(provider, tmp_path)
    async with app.run_test() as pilot:
        await send(pilot, "hi")
        await idle(pilot, app)
        answer = app.conversation.query(".assistant-message").last()
        await wait_for(pilot, lambda: answer.region.height > 0, "the answer on screen")
        assert answer.source == "Short and whole."


async def test_a_paste_whose_lines_end_in_cr_counts_and_sends_lf_lines(tmp_path):
    """Terminals deliver pasted line breaks as CR; the placeholder counts them."""
    app = make_app(ScriptedProvider(Response([text("ok")])), tmp_path)
    pasted = "\r".join(str(n) for n in range(1, 301)) + "\r"
    async with app.run_test() as pilot:
        app.post_message(events.Paste(pasted))
        await wait_for(pilot, lambda: "[Pasted" in app.prompt.text, "the placeholder")
        assert app.prompt.text == "[Pasted text #1 +300 lines]"
        await pilot.press("enter")
        await idle(pilot, app)
        expected = "".join(f"{n}\n" for n in range(1, 301))
        assert app.engine.messages[0]["content"] == [text(expected)]
