"""Enter in the `/` completion popup runs the highlighted command, as in Claude Code:
`/model` + Enter lists the models, `/compact` + Enter compacts, once. Tab completes the
name so arguments can follow. Whatever the timing of the keys, the command runs once and
its name never lands in the prompt twice (`/model /model`)."""

from __future__ import annotations

from textual import events
from textual.widgets import Markdown

from agentcli.commands.registry import REGISTRY, Command
from agentcli.engine.compaction import Compactor
from agentcli.providers.anthropic import AnthropicProvider
from agentcli.providers.retry import RetryPolicy
from tests.engine.harness import make_engine
from tests.engine.scripted import ScriptedProvider
from tests.fakeapi import reply, text
from tests.frontends.tui.helpers import idle, make_app, send, type_text, wait_for
from tests.frontends.tui.test_model_command import app_with_providers


def command_outputs(app) -> list[str]:
    return [w.source for w in app.conversation.query(Markdown) if w.has_class("-command")]


async def test_model_and_enter_once_lists_the_models(tmp_path, fake_openai):
    app = app_with_providers(tmp_path, fake_openai)
    async with app.run_test(size=(120, 50)) as pilot:
        await wait_for(pilot, lambda: app.engine.provider is not None, "the provider")
        await type_text(pilot, "/model")
        await wait_for(pilot, lambda: app.popup.showing, "the popup")
        await pilot.press("enter")
        outputs = await wait_for(pilot, lambda: command_outputs(app), "the model listing")
        assert "`local/configured-one`" in outputs[-1]
        assert app.prompt.text == "" and not app.popup.showing
        assert app.history.entries[-1] == "/model"


async def test_compact_and_enter_once_compacts_against_the_api(tmp_path, fake_api):
    provider = AnthropicProvider(
        api_key="test-key", base_url=fake_api.base_url, retry=RetryPolicy(max_retries=0)
    )
    compactor = Compactor(window=2000, threshold=0.5, keep_tokens=400, auto=False)
    engine = make_engine(provider, [], tmp_path, session=True, compactor=compactor)
    fake_api.enqueue(reply(text("A1")), reply(text("A2")), reply(text("THE SUMMARY")))
    from agentcli.frontends.tui.app import AgentApp

    app = AgentApp(cwd=tmp_path, engine=engine, permission_guard_s=0.0, remember_theme=False)
    try:
        async with app.run_test(size=(100, 40)) as pilot:
            await wait_for(pilot, lambda: app.ready and app.commands_loaded, "the commands")
            for prompt in ("first", "second"):
                await send(pilot, prompt)
                await idle(pilot, app)
            await type_text(pilot, "/compact")
            await wait_for(pilot, lambda: app.popup.showing, "the popup")
            await pilot.press("enter")
            await wait_for(pilot, lambda: compactor.compactions == 1, "the compaction")
            assert len(fake_api.requests) == 3
            assert "THE SUMMARY" in engine.messages[0]["content"][0]["text"]
            assert app.prompt.text == ""
            # It says what it kept verbatim and what it summarised, a paragraph each.
            said = await wait_for(pilot, lambda: command_outputs(app), "the report")
            assert "\n\nKept verbatim: " in said[-1] and "your first prompt" in said[-1]
            assert "\n\nSummarised: " in said[-1]
    finally:
        await provider.aclose()


async def test_a_partial_name_and_enter_runs_the_highlighted_command(tmp_path):
    app = make_app(ScriptedProvider(), tmp_path)
    async with app.run_test(size=(100, 40)) as pilot:
        await type_text(pilot, "/mod")
        await wait_for(pilot, lambda: app.popup.showing, "the popup")
        assert app.popup.selected().value.strip() == "/model"
        await pilot.press("enter")
        await wait_for(pilot, lambda: command_outputs(app), "the /model output")
        assert app.prompt.text == ""


async def test_tab_completes_a_command_that_takes_arguments_so_they_can_follow(tmp_path):
    app = make_app(ScriptedProvider(), tmp_path)
    async with app.run_test(size=(100, 40)) as pilot:
        await type_text(pilot, "/mode")
        await wait_for(pilot, lambda: app.popup.showing, "the popup")
        await pilot.press("tab")
        assert app.prompt.text == "/model " and not app.popup.showing
        await send(pilot, "claude-other")
        await wait_for(pilot, lambda: app.engine.config.model == "claude-other", "the switch")


async def test_the_exactly_typed_command_comes_first_even_as_an_alias(tmp_path):
    """`/quit` is /exit's alias; a command whose name contains `quit` must not take
    Enter from it (Claude Code's bug: `/context` + Enter ran `/compact`)."""

    async def noop(ctx):
        return None

    REGISTRY.register(Command("quitters-guide", "A test command", noop, source="test"))
    try:
        app = make_app(ScriptedProvider(), tmp_path)
        async with app.run_test(size=(100, 40)) as pilot:
            await type_text(pilot, "/quit")
            await wait_for(pilot, lambda: app.popup.showing, "the popup")
            assert [c.value.strip() for c in app.popup.items] == ["/exit", "/quitters-guide"]
            await pilot.press("enter")
            await wait_for(pilot, lambda: not app.is_running, "the app to quit")
    finally:
        REGISTRY.unregister("quitters-guide")


def press_at_once(app, *keys: str) -> None:
    """Keys as a fast terminal delivers them: all queued before the first is handled."""
    for key in keys:
        character = key if len(key) == 1 else None
        app.prompt.post_message(events.Key(key, character))


async def test_keys_arriving_together_run_the_command_once(tmp_path):
    """`/model` and Enter in one read from the terminal: the popup has not opened when
    Enter is handled. The command still runs, once, and the prompt is left empty."""
    app = make_app(ScriptedProvider(), tmp_path)
    async with app.run_test(size=(100, 40)) as pilot:
        press_at_once(app, "/", "m", "o", "d", "e", "l", "enter")
        await wait_for(pilot, lambda: command_outputs(app), "the /model output")
        await pilot.pause()
        assert len(command_outputs(app)) == 1
        assert app.prompt.text == "" and not app.popup.showing


async def test_a_space_and_enter_together_send_the_command_with_the_popup_closing(tmp_path):
    """The popup is open for `/model`; a space (which closes it) and Enter arrive
    together: Enter sends what is typed instead of being swallowed by the closing popup."""
    app = make_app(ScriptedProvider(), tmp_path)
    async with app.run_test(size=(100, 40)) as pilot:
        await type_text(pilot, "/model")
        await wait_for(pilot, lambda: app.popup.showing, "the popup")
        press_at_once(app, "space", "enter")
        await wait_for(pilot, lambda: command_outputs(app), "the /model output")
        assert app.prompt.text == ""
