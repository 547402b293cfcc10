"""Display models: plain data every front end can send, and the transcript can keep."""

from __future__ import annotations

import json

import pytest

from agentcli.tools.diff import build_diff
from agentcli.tools.display import (
    CommandDisplay,
    CreatedDisplay,
    ImageDisplay,
    PlanDisplay,
    ReadDisplay,
    SearchDisplay,
    ToolDisplay,
    load_display,
)

EVERY_KIND = [
    ReadDisplay(path="a.py", lines=3, truncated=True, encoding="latin-1"),
    build_diff("a.py", "one\n", "two\n"),
    CreatedDisplay(path="new.py", lines=2),
    CommandDisplay(exit_code=None, timed_out=True, output_file="/tmp/out.txt"),
    SearchDisplay(found=120, shown=100, unit="files"),
    ImageDisplay(path="logo.png", media_type="image/png", size=2048),
    PlanDisplay(plan="1. do it"),
]


@pytest.mark.parametrize("display", EVERY_KIND, ids=lambda d: d.type)
def test_each_display_goes_through_json_and_back(display: ToolDisplay) -> None:
    sent = json.loads(json.dumps(display.model_dump(mode="json")))
    assert sent["type"] == display.type
    assert load_display(sent) == display


@pytest.mark.parametrize(
    "data",
    [
        None,
        "diff",
        {"type": "hologram", "path": "a.py"},  # a kind this version does not know
        {"type": "read", "path": "a.py"},  # a field missing
        {"type": "read", "path": "a.py", "lines": 1, "colour": "red"},  # a field unknown
    ],
)
def test_what_is_not_a_display_we_know_loads_as_none(data: object) -> None:
    assert load_display(data) is None


def test_displays_are_frozen() -> None:
    display = CreatedDisplay(path="a.py", lines=1)
    with pytest.raises(ValueError):
        display.lines = 2  # type: ignore[misc]
