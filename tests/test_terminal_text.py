"""Untrusted text -> text a terminal can only show: the decoder in agentcli.core.terminal_text."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.text import Text

from agentcli.core.terminal_text import (
    MAX_HELD,
    MarkdownCleaner,
    TerminalDecoder,
    clean_markdown,
    line_plain,
    lines_text,
    terminal_plain,
    terminal_text,
    visible_controls,
)

# What must never come out: C0 controls but newline and tab, DEL, C1 controls.
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")

HOSTILE = [
    ("clear screen", "\x1b[2Jafter", "after"),
    ("cursor home", "a\x1b[Hb", "ab"),
    ("erase line, cursor moves", "a\x1b[2K\x1b[3A\x1b[10;20Hb", "ab"),
    ("private CSI", "\x1b[?1049h\x1b[?25lhidden cursor", "hidden cursor"),
    ("xterm key mode is not a colour", "\x1b[>4;2mtext", "text"),
    ("title by BEL", "\x1b]0;TITLE\x07after", "after"),
    ("title by ST", "\x1b]2;TITLE\x1b\\after", "after"),
    ("OSC 52 clipboard", "\x1b]52;c;cm0gLXJmIH4=\x07text", "text"),
    ("OSC 8 hyperlink", "\x1b]8;;http://evil\x1b\\link\x1b]8;;\x1b\\ text", "link text"),
    ("OSC unterminated", "before\x1b]0;TITLE and the rest", "before"),
    ("OSC ended by another sequence", "a\x1b]0;TITLE\x1b[31mb", "ab"),
    ("OSC cancelled by CAN", "a\x1b]0;x\x18b", "ab"),
    ("DCS", "\x1bP1$r\x1b\\text", "text"),
    ("APC", "\x1b_APC\x1b\\text", "text"),
    ("PM and SOS", "\x1b^pm\x1b\\\x1bXsos\x1b\\text", "text"),
    ("8-bit CSI", "\x9b2Jtext", "text"),
    ("8-bit OSC and ST", "\x9d0;TITLE\x9ctext", "text"),
    ("8-bit DCS", "\x90data\x9ctext", "text"),
    ("other C1", "a\x85b\x8dc\x9cd", "abcd"),
    ("bare ESC at the end", "text\x1b", "text"),
    ("bare ESCs before a sequence", "a\x1b\x1b\x1b[0mb", "ab"),
    ("bare ESC before a newline", "a\x1b\nb", "a\nb"),
    ("ESC before a non-ASCII letter", "a\x1béb", "aéb"),
    ("reset (RIS)", "\x1bctext", "text"),
    ("save and restore cursor", "\x1b7a\x1b8b", "ab"),
    ("charset", "\x1b(Btext\x1b)0", "text"),
    ("CSI cut at the end", "text\x1b[31", "text"),
    ("malformed CSI keeps what follows", "a\x1b[12é", "aé"),
    ("bell, NUL, VT, FF, DEL", "a\x07b\x00c\x0bd\x0ce\x7ff", "abcdef"),
    ("backspace overwrites", "ab\bc", "ac"),
    ("backspace at column 0", "\b\bab", "ab"),
    ("underline by backspace", "_\bx", "x"),
    ("progress by carriage return", "progress 10%\rprogress 100%", "progress 100%"),
    ("shorter overwrite keeps the rest", "abcdef\rXY", "XYcdef"),
    ("CRLF is a line end", "one\r\ntwo\r\n", "one\ntwo\n"),
    ("CR at the end", "done\r", "done"),
    ("tab and newline stay", "a\tb\nc", "a\tb\nc"),
]


@pytest.mark.parametrize(
    ("raw", "shown"), [case[1:] for case in HOSTILE], ids=[c[0] for c in HOSTILE]
)
def test_hostile_input_shows_only_its_text(raw, shown):
    assert terminal_plain(raw) == shown
    assert terminal_text(raw).plain == shown
    assert CONTROL.search(terminal_text(raw).plain) is None


@pytest.mark.parametrize(
    ("raw", "shown"), [case[1:] for case in HOSTILE], ids=[c[0] for c in HOSTILE]
)
def test_any_split_into_two_chunks_shows_the_same(raw, shown):
    for cut in range(len(raw) + 1):
        assert decode_chunks([raw[:cut], raw[cut:]]) == shown, f"cut at {cut}"


def decode_chunks(chunks: list[str]) -> str:
    decoder = TerminalDecoder(styled=False)
    lines = [line for chunk in chunks for line in decoder.feed(chunk)]
    lines += decoder.close()
    return "\n".join(line_plain(line) for line in [*lines, decoder.partial])


def test_sgr_colours_become_styles():
    text = terminal_text("\x1b[31mred\x1b[0m plain \x1b[1;32mbold green\x1b[m")
    assert text.plain == "red plain bold green"
    assert style_at(text, "red").color.number == 1
    assert style_at(text, "plain") is None
    green = style_at(text, "bold green")
    assert green.bold and green.color.number == 2


def test_extended_colours_and_attributes():
    text = terminal_text(
        "\x1b[38;5;196ma\x1b[0m\x1b[38;2;1;2;3mb\x1b[0m\x1b[48:2::4:5:6mc\x1b[0m\x1b[3;4md"
    )
    assert style_at(text, "a").color.number == 196
    assert style_at(text, "b").color.triplet == (1, 2, 3)
    assert style_at(text, "c").bgcolor.triplet == (4, 5, 6)
    assert style_at(text, "d").italic and style_at(text, "d").underline


def test_colour_carries_across_lines_and_chunks():
    decoder = TerminalDecoder()
    lines = decoder.feed("\x1b[3") + decoder.feed("1mone\ntw") + decoder.feed("o\x1b[0m three\n")
    text = lines_text(lines)
    assert text.plain == "one\ntwo three"
    assert style_at(text, "one").color.number == 1
    assert style_at(text, "two").color.number == 1
    assert style_at(text, "three") is None


def test_overwritten_text_keeps_the_style_it_was_written_with():
    text = terminal_text("\x1b[31mfailed\x1b[0m\r\x1b[32mok\x1b[0m")
    assert text.plain == "okiled"
    assert style_at(text, "ok").color.number == 2
    assert style_at(text, "iled").color.number == 1


def style_at(text: Text, word: str):
    start = text.plain.index(word)
    styles = [s.style for s in text.spans if s.start <= start < s.end]
    return styles[-1] if styles else None


def test_a_sequence_cut_between_chunks_neither_leaks_nor_eats_text():
    decoder = TerminalDecoder(styled=False)
    assert decoder.feed("before \x1b]0;TI") == []
    assert line_plain(decoder.partial) == "before "
    assert decoder.feed("TLE\x1b") == []
    assert decoder.feed("\\after\r") == []
    assert [line_plain(line) for line in decoder.feed("\nnext \x1b")] == ["before after"]
    assert decoder.feed("[2Jline") == []
    assert line_plain(decoder.partial) == "next line"


def test_a_cut_carriage_return_line_feed_is_one_line_end():
    decoder = TerminalDecoder(styled=False)
    assert decoder.feed("one\r") == []
    assert [line_plain(line) for line in decoder.feed("\ntwo")] == ["one"]
    assert line_plain(decoder.partial) == "two"


def test_an_overlong_held_sequence_is_dropped_and_what_follows_shows():
    decoder = TerminalDecoder(styled=False)
    decoder.feed("a\x1b[" + "1" * (MAX_HELD + 10))
    decoder.feed("\nvisible")
    assert line_plain(decoder.partial) == "visible"


def test_char_by_char_feed_equals_one_shot():
    raw = "".join(case[1] + "\n" for case in HOSTILE)
    assert decode_chunks(list(raw)) == terminal_plain(raw)


# Pieces from which random hostile text is made.
PIECES = st.sampled_from(
    [
        "word",
        " ",
        "é",
        "漢",
        "\n",
        "\r",
        "\r\n",
        "\t",
        "\b",
        "\x07",
        "\x00",
        "\x1b",
        "\x1b[",
        "\x1b[31m",
        "\x1b[0m",
        "\x1b[2J",
        "\x1b[?25l",
        "\x1b]0;title\x07",
        "\x1b]8;;http://x\x1b\\",
        "\x1b]",
        "\x1b\\",
        "\x1bP",
        "\x1b_",
        "\x1bc",
        "\x9b",
        "\x9d",
        "\x9c",
        "\x85",
        "12;",
        "m",
    ]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(PIECES, max_size=40), st.lists(st.integers(0, 400), max_size=6))
def test_random_text_in_random_chunks_is_safe_and_chunking_changes_nothing(pieces, cuts):
    raw = "".join(pieces)
    bounds = sorted({min(cut, len(raw)) for cut in cuts})
    chunks = [raw[a:b] for a, b in zip([0, *bounds], [*bounds, len(raw)], strict=True)]
    shown = terminal_text(raw).plain
    assert CONTROL.search(shown) is None
    assert decode_chunks(chunks) == shown == terminal_plain(raw)
    cleaner = MarkdownCleaner()
    markdown = "".join(cleaner.feed(chunk) for chunk in chunks)
    assert markdown == clean_markdown(raw)
    assert re.search(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]", markdown) is None


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.sampled_from(["\x1b[2J", "\x1b]0;t\x07", "\x1bc", "\x9b1m", "\x07"]), max_size=8)
)
def test_complete_sequences_between_words_never_eat_a_word(sequences):
    words = [f"w{i}" for i in range(len(sequences) + 1)]
    raw = words[0] + "".join(seq + word for seq, word in zip(sequences, words[1:], strict=True))
    assert terminal_plain(raw) == "".join(words)


def test_markdown_cleaner_keeps_line_endings_and_passes_clean_chunks_through():
    cleaner = MarkdownCleaner()
    chunk = "# Title\r\n\n- item\twith tab\n"
    assert cleaner.feed(chunk) is chunk
    assert cleaner.feed("a \x1b]0;pw") == "a "
    assert cleaner.feed("ned\x07**b**\x1b") == "**b**"
    assert cleaner.feed("[1mc") == "c"
    assert cleaner.feed("end\x1b[") == "end"


def test_visible_controls_shows_each_control_and_keeps_the_rest():
    shown = visible_controls("echo ok\rrm -rf ~ \x1b]0;x\x07\x9b2J\x7f\n\tnext")
    assert shown == "echo ok␍rm -rf ~ ␛]0;x␇␛[2J␡\n\tnext"
    assert CONTROL.search(shown) is None


def test_text_without_controls_is_returned_as_is():
    raw = "plain text\nwith lines\tand tabs"
    assert terminal_plain(raw) is raw
    assert terminal_text(raw, "dim").plain == raw
    assert terminal_text(raw, "dim").style == "dim"
