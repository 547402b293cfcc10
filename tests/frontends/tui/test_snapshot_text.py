"""The text a failing snapshot prints (tests/frontends/tui/snapshot_text.py): a row that
moved or changed is named with its text, a colour change is told apart from it."""

from __future__ import annotations

from pathlib import Path

from tests.frontends.tui.snapshot_text import screen_diff, screen_rows

SNAPSHOTS = Path(__file__).parent / "__snapshots__" / "test_snapshots"


def snapshot(name: str) -> str:
    return (SNAPSHOTS / f"{name}.svg").read_text(encoding="utf-8")


def test_the_rows_read_as_the_screen_shows_them():
    rows = screen_rows(snapshot("test_finished_turn_with_a_diff[light]"))
    assert len(rows) == 32
    assert rows[15] == "   ⎿  Read 4 lines  (click to expand)"
    assert rows[-1] == " claude-test · bypass permissions · context 10 (0%) · $0.00"


def test_a_changed_row_is_shown_with_its_number_and_both_texts():
    expected = snapshot("test_finished_turn_with_a_diff[light]")
    actual = expected.replace("Read&#160;4&#160;lines", "Read&#160;5&#160;lines")
    told = screen_diff(expected, actual)
    assert "-15    ⎿  Read 4 lines  (click to expand)" in told
    assert "+15    ⎿  Read 5 lines  (click to expand)" in told


def test_a_picture_whose_text_is_the_same_says_so():
    told = screen_diff(
        snapshot("test_finished_turn_with_a_diff[light]"),
        snapshot("test_finished_turn_with_a_diff[dark]"),
    )
    assert "differ" in told and "text differs" not in told
