"""The assistant's answer: a StreamingMarkdown (finished blocks frozen, only the
live tail re-parsed), imported on the first answer rather than before the first
frame, since the markdown parser is not needed to show the prompt."""

from __future__ import annotations

from typing import Any


def make_answer_widget(**kwargs: Any) -> Any:
    """A new streaming markdown widget for one assistant answer."""
    from agentcli.frontends.tui.widgets.streaming_markdown import StreamingMarkdown

    return StreamingMarkdown(**kwargs)
