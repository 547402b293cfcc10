"""The edges of vim keys, on the decisions alone (frontends/tui/vim_keys.py): the
prompt's Pilot tests (test_prompt_vim.py) press the common cases on the real prompt."""

from __future__ import annotations

import pytest

from agentcli.frontends.tui.vim_keys import VimKeys


def run(text: str, pos: int, keys: str) -> tuple[str, int, str]:
    """`keys` pressed in normal mode (one character each); the text, cursor and mode."""
    vim = VimKeys()
    vim.mode = "normal"
    for char in keys:
        outcome = vim.key(char, char, text, pos)
        assert not outcome.undo and not outcome.arrow
        if outcome.edit is not None:
            edit = outcome.edit
            text = text[: edit.start] + edit.text + text[edit.end :]
        if outcome.cursor is not None:
            pos = outcome.cursor
        assert 0 <= pos <= len(text)
    return text, pos, vim.mode


@pytest.mark.parametrize(
    ("text", "pos", "keys", "expected"),
    [
        ("", 0, "x", ("", 0, "normal")),  # nothing to delete
        ("", 0, "dd", ("", 0, "normal")),
        ("only", 2, "dd", ("", 0, "normal")),
        ("a\n\nb", 2, "x", ("a\n\nb", 2, "normal")),  # x on an empty line keeps the newline
        ("one two", 4, "dw", ("one ", 3, "normal")),  # the last word: to the line's end
        ("one\ntwo", 0, "dw", ("\ntwo", 0, "normal")),  # never the next line
        ("one\ntwo", 0, "5x", ("\ntwo", 0, "normal")),  # x stays in its line
        ("one two", 0, "p", ("one two", 0, "normal")),  # an empty register puts nothing
        ("ab", 1, "D", ("a", 0, "normal")),
        ("ab", 0, "9999999999l", ("ab", 1, "normal")),  # a huge count is bounded
        ("l1\nl2", 0, "5dd", ("", 0, "normal")),  # more lines than there are
        ("l1\nl2\nl3", 0, "dG", ("", 0, "normal")),
        ("l1\nl2\nl3", 6, "dgg", ("l1\nl2\nl3", 6, "normal")),  # not a motion here
        ("foo(bar)", 0, "cw", ("(bar)", 0, "insert")),
        ("foo bar", 2, "cw", ("fo bar", 2, "insert")),  # on a word's last letter: just it
        ("foo   bar", 3, "cw", ("foobar", 3, "insert")),  # on blanks: as dw
        ("a b c", 0, "2dw", ("c", 0, "normal")),
        ("a b c d", 0, "d2w", ("c d", 0, "normal")),  # a count after the operator too
        ("a b c d e f g", 0, "2d3w", ("g", 0, "normal")),  # both: multiplied, as vim
        ("x", 0, "yyP", ("x\nx", 0, "normal")),
        ("ab", 0, "ylp", ("aab", 1, "normal")),
        ("word", 0, "zQ!@#", ("word", 0, "normal")),  # unbound keys type nothing
    ],
)
def test_edges(text, pos, keys, expected):
    assert run(text, pos, keys) == expected


def test_escape_in_insert_mode_steps_back_but_not_past_the_line_start():
    vim = VimKeys()
    assert vim.key("escape", None, "ab\ncd", 3).cursor == 3  # at the start of "cd"
    vim.mode = "insert"
    assert vim.key("escape", None, "ab\ncd", 5).cursor == 4
    assert vim.mode == "normal"


def test_keys_the_app_uses_pass_on_in_normal_mode():
    vim = VimKeys()
    vim.mode = "normal"
    for key in ("enter", "up", "down", "ctrl+c", "ctrl+d", "shift+tab", "pageup", "escape"):
        assert vim.key(key, None, "text", 1).passes_on, key
