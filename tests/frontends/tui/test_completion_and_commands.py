"""`/` and `@` completion, `!` shell commands, and the built-in slash commands."""

from __future__ import annotations

import json

from agentcli.commands.registry import REGISTRY
from agentcli.config.paths import agentcli_home
from tests.engine.scripted import Response, ScriptedProvider, text
from tests.frontends.tui.helpers import idle, make_app, send, type_text, wait_for


def last_output(app) -> str:
    widget = app.conversation.children[-1]
    return getattr(widget, "source", None) or str(widget.render())


async def test_slash_popup_filters_as_you_type_and_tab_completes(tmp_path):
    app = make_app(ScriptedProvider(), tmp_path)
    async with app.run_test(size=(100, 40)) as pilot:
        await type_text(pilot, "/")
        await wait_for(pilot, lambda: app.popup.showing, "the popup")
        everything = [c.value.strip() for c in app.popup.items]
        assert {
            "/help",
            "/clear",
            "/model",
            "/cost",
            "/status",
            "/theme",
            "/permissions",
            "/exit",
        } <= set(everything)
        await type_text(pilot, "pe")
        assert [c.value.strip() for c in app.popup.items] == ["/permissions"]
        await pilot.press("tab")
        assert app.prompt.text == "/permissions " and not app.popup.showing


async def test_enter_in_the_popup_runs_a_command_without_arguments(tmp_path):
    app = make_app(ScriptedProvider(), tmp_path)
    async with app.run_test(size=(100, 40)) as pilot:
        await type_text(pilot, "/cos")
        await wait_for(pilot, lambda: app.popup.showing, "the popup")
        await pilot.press("enter")
        await wait_for(pilot, lambda: "Total cost" in last_output(app), "the /cost output")
        assert app.prompt.text == ""


async def test_escape_closes_the_popup_and_keeps_the_text(tmp_path):
    app = make_app(ScriptedProvider(), tmp_path)
    async with app.run_test() as pilot:
        await type_text(pilot, "/he")
        await wait_for(pilot, lambda: app.popup.showing, "the popup")
        await pilot.press("escape")
        assert not app.popup.showing and app.prompt.text == "/he"


async def test_at_completes_project_files_fuzzily_respecting_gitignore(tmp_path):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "main_module.py").write_text("print('hello')\n")
    (tmp_path / "notes.txt").write_text("n\n")
    (tmp_path / "ignored.py").write_text("x\n")
    (tmp_path / ".gitignore").write_text("ignored.py\n")
    provider = ScriptedProvider(Response([text("seen")]))
    app = make_app(provider, tmp_path)
    async with app.run_test(size=(100, 40)) as pilot:
        await wait_for(pilot, lambda: app.prompt_flow.files, "the file list")
        assert "ignored.py" not in app.prompt_flow.files
        await type_text(pilot, "look at @smm")
        await wait_for(pilot, lambda: app.popup.showing, "the popup")
        assert app.popup.items[0].label == "src/main_module.py"
        await pilot.press("tab")
        assert app.prompt.text == "look at @src/main_module.py "
        await pilot.press("enter")
        await idle(pilot, app)
        sent = provider.requests[0].messages[0]["content"]
        assert "print('hello')" in sent[0]["text"] and sent[-1]["text"].startswith("look at @src")


async def test_bang_runs_a_shell_command_and_the_model_sees_it(tmp_path):
    provider = ScriptedProvider(Response([text("I see it")]))
    app = make_app(provider, tmp_path)
    async with app.run_test(size=(100, 40)) as pilot:
        await send(pilot, "!echo from-the-shell")
        await wait_for(pilot, lambda: app.turns.pending_context, "the command to finish")
        pane = list(app.conversation.panes.values())[-1]
        assert pane.state == "done" and "from-the-shell" in pane.summary
        assert not app.engine.messages  # not a turn by itself
        await send(pilot, "what did it print")
        await idle(pilot, app)
        sent = repr(provider.requests[0].messages[0]["content"])
        assert (
            "<bash-input>echo from-the-shell</bash-input>" in sent and "from-the-shell\\n" in sent
        )


async def test_help_is_generated_from_the_registry(tmp_path):
    from agentcli.commands.registry import Command

    async def noop(ctx):
        return None

    REGISTRY.register(Command("zzz-test", "A test command", noop, source="test"))
    try:
        app = make_app(ScriptedProvider(), tmp_path)
        async with app.run_test() as pilot:
            await send(pilot, "/help")
            await pilot.pause()
            out = last_output(app)
            for cmd in REGISTRY.all():
                assert f"/{cmd.name}" in out
            assert "A test command" in out
    finally:
        REGISTRY.unregister("zzz-test")


async def test_unknown_command_says_so_and_sends_nothing(tmp_path):
    app = make_app(ScriptedProvider(), tmp_path)
    async with app.run_test() as pilot:
        await send(pilot, "/nonsense")
        await pilot.pause()
        assert "Unknown command: /nonsense" in last_output(app)
        assert not app.engine.messages


async def test_model_cost_status_permissions_commands(tmp_path):
    app = make_app(ScriptedProvider(), tmp_path, engine_kw={"allow": ["Bash(git diff:*)"]})
    async with app.run_test(size=(100, 40)) as pilot:
        await send(pilot, "/model claude-other")
        await pilot.pause()
        assert app.engine.config.model == "claude-other"
        assert "claude-other" in str(app.status_bar.render())
        await send(pilot, "/status")
        await pilot.pause()
        assert app.engine.session_id in last_output(app)
        await send(pilot, "/permissions")
        await pilot.pause()
        assert "Bash(git diff:*)" in last_output(app)
        await send(pilot, "/cost")
        await pilot.pause()
        assert "$0.0000" in last_output(app)


async def test_clear_empties_the_conversation_and_the_history_sent_to_the_model(tmp_path):
    provider = ScriptedProvider(Response([text("one")]), Response([text("two")]))
    app = make_app(provider, tmp_path)
    async with app.run_test() as pilot:
        await send(pilot, "first")
        await idle(pilot, app)
        await send(pilot, "/clear")
        await pilot.pause()
        assert app.engine.messages == [] and not app.conversation.query(".user-message")
        await send(pilot, "fresh")
        await idle(pilot, app)
        assert len(provider.requests[1].messages) == 1


async def test_theme_switches_and_is_remembered(tmp_path):
    app = make_app(ScriptedProvider(), tmp_path, remember_theme=True)
    async with app.run_test() as pilot:
        assert app.has_class("theme-dark")
        await send(pilot, "/theme light")
        await pilot.pause()
        assert app.has_class("theme-light") and not app.has_class("theme-dark")
        assert app.theme == "textual-light"
    settings = json.loads((agentcli_home() / "settings.json").read_text())
    assert settings["theme"] == "light"
    again = make_app(ScriptedProvider(), tmp_path, remember_theme=True)
    async with again.run_test() as pilot:
        await pilot.pause()
        assert again.has_class("theme-light")


async def test_theme_keeps_other_settings_and_reports_a_broken_file(tmp_path):
    path = agentcli_home() / "settings.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text('{"model": "keep-me"}')
    app = make_app(ScriptedProvider(), tmp_path, remember_theme=True)
    async with app.run_test() as pilot:
        await send(pilot, "/theme high-contrast")
        await wait_for(pilot, lambda: app.has_class("theme-high-contrast"), "the theme")
    assert json.loads(path.read_text()) == {"model": "keep-me", "theme": "high-contrast"}
    path.write_text("{broken")
    app = make_app(ScriptedProvider(), tmp_path, remember_theme=True)
    async with app.run_test() as pilot:
        assert app.has_class("theme-dark")

        def notes() -> str:
            return " ".join(str(n.render()) for n in app.conversation.query(".note"))

        await wait_for(pilot, lambda: "settings.json" in notes(), "the note on the file")
        assert "invalid JSON" in notes()
        await send(pilot, "/theme light")
        await wait_for(pilot, lambda: "settings.json" in last_output(app), "the file named")
    assert path.read_text() == "{broken"


async def test_copy_puts_the_last_answer_on_the_clipboard(tmp_path):
    answer = "# Heading\n\n- item\n"
    app = make_app(ScriptedProvider(Response([text(answer)])), tmp_path)
    async with app.run_test() as pilot:
        await send(pilot, "/copy")
        await pilot.pause()
        assert "no answer" in last_output(app)
        await send(pilot, "hi")
        await idle(pilot, app)
        await send(pilot, "/copy")
        await pilot.pause()
        assert app.clipboard == answer


async def test_exit_command_quits(tmp_path):
    app = make_app(ScriptedProvider(), tmp_path)
    async with app.run_test() as pilot:
        await send(pilot, "/exit")
        await pilot.pause()
    assert app.return_code == 0


async def test_export_copies_the_conversation_or_writes_the_file_named(tmp_path):
    app = make_app(ScriptedProvider(Response([text("The answer, **bold**.")])), tmp_path)
    async with app.run_test() as pilot:
        await send(pilot, "a question")
        await idle(pilot, app)
        await send(pilot, "/export")
        await wait_for(pilot, lambda: bool(app.clipboard), "the clipboard")
        assert "## You\n\na question" in app.clipboard
        assert "## agentcli\n\nThe answer, **bold**." in app.clipboard
        assert "Copied the conversation" in last_output(app)

        await send(pilot, "/export talk.md")
        await wait_for(pilot, lambda: "Exported" in last_output(app), "the export")
    written = (app.state.cwd / "talk.md").read_text()
    assert "a question" in written and "The answer, **bold**." in written
