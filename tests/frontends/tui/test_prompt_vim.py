"""Vim keys in the prompt, pressed on the real prompt: `/vim` and `"editorMode": "vim"`
turn them on, Esc goes to normal mode, the motions and edits do what vim's do, Enter
sends in either mode, and the keys the app uses keep their meaning."""

from __future__ import annotations

import json

import pytest

from agentcli.config.settings import load_settings
from tests.engine.scripted import Response, ScriptedProvider, text
from tests.frontends.tui.helpers import idle, make_app, send, type_text, wait_for

SAMPLE = "alpha beta.gamma  delta\n  second line here\nthird"


async def normal_on(pilot, app, content: str, at: tuple[int, int]) -> None:
    """Vim keys on, `content` in the prompt, the cursor at `at`, in normal mode (Esc)."""
    if app.prompt.vim is None:
        app.toggle_vim()
    app.prompt.vim.mode = "insert"
    app.prompt.set_text(content)
    app.prompt.move_cursor((at[0], at[1] + 1))
    await pilot.press("escape")  # back one, as vim's Esc
    assert app.prompt.vim.mode == "normal"
    assert app.prompt.cursor_location == at


def where(app) -> tuple[int, int]:
    return app.prompt.cursor_location


@pytest.fixture
def app(tmp_path):
    return make_app(ScriptedProvider(Response([text("ok")]), Response([text("ok")])), tmp_path)


async def test_vim_command_toggles_the_keys_and_the_border_shows_the_mode(app):
    async with app.run_test() as pilot:
        await wait_for(pilot, lambda: app.ready and app.commands_loaded, "the commands")
        await send(pilot, "/vim")
        await wait_for(pilot, lambda: app.prompt.vim is not None, "vim keys on")
        assert app.prompt.border_subtitle == "-- INSERT --"
        await type_text(pilot, "hi")
        assert app.prompt.text == "hi"  # insert mode types
        await pilot.press("escape")
        assert app.prompt.border_subtitle == "-- NORMAL --"
        await pilot.press("x", "a", "o")  # x deletes the i; a, then typing after the h
        assert app.prompt.text == "ho"
        assert app.prompt.border_subtitle == "-- INSERT --"
        app.prompt.set_text("")
        await send(pilot, "/vim")
        await wait_for(pilot, lambda: app.prompt.vim is None, "vim keys off")
        assert app.prompt.border_subtitle == ""


async def test_editor_mode_vim_in_settings_starts_with_vim_keys(tmp_path):
    (tmp_path / ".agentcli").mkdir()
    (tmp_path / ".agentcli" / "settings.json").write_text(json.dumps({"editorMode": "vim"}))
    settings = load_settings(tmp_path, trusted=True)
    assert not settings.problems, settings.problems
    app = make_app(ScriptedProvider(), tmp_path, engine_kw={"settings": settings})
    async with app.run_test() as pilot:
        await wait_for(pilot, lambda: app.prompt.vim is not None, "vim keys from the settings")
        assert app.prompt.border_subtitle == "-- INSERT --"


async def test_motions_within_a_line(app):
    async with app.run_test() as pilot:
        await normal_on(pilot, app, SAMPLE, (0, 0))
        await pilot.press("w")
        assert where(app) == (0, 6)  # beta
        await pilot.press("w")
        assert where(app) == (0, 10)  # "." is a word of its own
        await pilot.press("e")
        assert where(app) == (0, 15)  # the end of the next word: gamma
        await pilot.press("e")
        assert where(app) == (0, 22)
        await pilot.press("b")
        assert where(app) == (0, 18)
        await pilot.press("b", "b")
        assert where(app) == (0, 10)
        await pilot.press("dollar_sign")
        assert where(app) == (0, 22)  # on the last character, never past it
        await pilot.press("l")
        assert where(app) == (0, 22)
        await pilot.press("0")
        assert where(app) == (0, 0)
        await pilot.press("3", "l", "h")
        assert where(app) == (0, 2)
        await pilot.press("2", "w")
        assert where(app) == (0, 10)


async def test_motions_across_lines_and_counts(app):
    async with app.run_test() as pilot:
        await normal_on(pilot, app, SAMPLE, (0, 3))
        await pilot.press("j")
        assert where(app) == (1, 3)
        await pilot.press("circumflex_accent")
        assert where(app) == (1, 2)  # the first non-blank
        await pilot.press("G")
        assert where(app) == (2, 0)
        await pilot.press("g", "g")
        assert where(app) == (0, 0)
        await pilot.press("2", "G")
        assert where(app) == (1, 2)
        await pilot.press("k")
        assert where(app) == (0, 2)
        await pilot.press("5", "w")  # words go on to the next line
        assert where(app) == (1, 2)


async def test_deletes_and_changes(app):
    async with app.run_test() as pilot:
        await normal_on(pilot, app, "one two three four", (0, 4))
        await pilot.press("d", "w")
        assert app.prompt.text == "one three four"
        await pilot.press("2", "x")
        assert app.prompt.text == "one ree four"
        await pilot.press("c", "w")
        assert app.prompt.vim.mode == "insert"
        await type_text(pilot, "3")
        assert app.prompt.text == "one 3 four"  # cw keeps the space after the word
        await pilot.press("escape", "D")
        assert app.prompt.text == "one "
        await pilot.press("0", "C")
        await type_text(pilot, "new")
        assert app.prompt.text == "new"


async def test_line_edits_with_counts_and_undo(app):
    async with app.run_test() as pilot:
        await normal_on(pilot, app, "l1\nl2\nl3\nl4", (1, 1))
        await pilot.press("2", "d", "d")
        assert app.prompt.text == "l1\nl4"
        assert where(app) == (1, 0)
        await pilot.press("u")
        assert app.prompt.text == "l1\nl2\nl3\nl4"
        await pilot.press("G", "d", "d")  # the last line: the newline before it goes
        assert app.prompt.text == "l1\nl2\nl3"
        await pilot.press("g", "g", "c", "c")
        await type_text(pilot, "top")
        assert app.prompt.text == "top\nl2\nl3"


async def test_yank_and_put(app):
    async with app.run_test() as pilot:
        await normal_on(pilot, app, "first\nsecond", (0, 2))
        await pilot.press("y", "y", "p")
        assert app.prompt.text == "first\nfirst\nsecond"
        assert where(app) == (1, 0)
        await pilot.press("G", "P")
        assert app.prompt.text == "first\nfirst\nfirst\nsecond"
        await normal_on(pilot, app, "ab cd", (0, 0))
        await pilot.press("y", "w", "dollar_sign", "p")
        assert app.prompt.text == "ab cdab "
        await pilot.press("0", "x", "P")  # x keeps what it cut
        assert app.prompt.text == "ab cdab "


async def test_ways_into_insert_mode(app):
    async with app.run_test() as pilot:
        for key, typed, expected in [
            ("i", "X", "  aXb\nc"),
            ("a", "X", "  abX\nc"),
            ("I", "X", "  Xab\nc"),
            ("A", "X", "  abX\nc"),
            ("o", "X", "  ab\nX\nc"),
            ("O", "X", "X\n  ab\nc"),
        ]:
            await normal_on(pilot, app, "  ab\nc", (0, 3))
            await pilot.press(key)
            assert app.prompt.vim.mode == "insert", key
            await type_text(pilot, typed)
            assert app.prompt.text == expected, key


async def test_keys_without_a_meaning_type_nothing_in_normal_mode(app):
    async with app.run_test() as pilot:
        await normal_on(pilot, app, "keep", (0, 0))
        await pilot.press("z", "q", "exclamation_mark", "space")
        assert app.prompt.text == "keep"
        assert where(app) == (0, 1)  # space moves right, as l


async def test_enter_in_normal_mode_sends_and_the_next_prompt_types(app):
    async with app.run_test() as pilot:
        await wait_for(pilot, lambda: app.ready, "the engine")
        await normal_on(pilot, app, "send me", (0, 2))
        await pilot.press("enter")
        await idle(pilot, app)
        assert app.engine.messages[0]["content"] == [text("send me")]
        assert app.prompt.text == "" and app.prompt.vim.mode == "insert"


async def test_on_an_empty_prompt_k_and_j_walk_the_history_as_up_and_down(app):
    async with app.run_test() as pilot:
        await wait_for(pilot, lambda: app.ready, "the engine")
        await send(pilot, "earlier prompt")
        await idle(pilot, app)
        app.toggle_vim()
        await pilot.press("escape")
        assert app.prompt.vim.mode == "normal" and app.prompt.text == ""
        await pilot.press("k")
        assert app.prompt.text == "earlier prompt"
        await pilot.press("j")
        assert app.prompt.text == ""
        # Esc goes on to the app: twice on an empty prompt is the rewind, as ever.
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.keys.armed == "escape", "the rewind hint")
