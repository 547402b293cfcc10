"""The conversation's plain items: what the person sent, and notes.

Apart from the conversation (widgets/conversation.py) so that the entries that
rebuild them (history_entries.py) and the conversation that keeps those entries
both use them, one way.
"""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from agentcli.core.terminal_text import terminal_text


class UserMessageView(Static):
    """What the person sent, prefixed like a prompt."""

    def __init__(self, text: str) -> None:
        super().__init__(terminal_text("> " + text), classes="user-message")
        self.text = text


class Note(Static):
    """A line that is not part of the conversation: errors, notices, command output.

    A string is untrusted text (never markup): shown by `terminal_text`.
    """

    def __init__(self, content: str | Text, level: str = "info") -> None:
        self.given = content  # what rebuilds this note (history_entries.py)
        if isinstance(content, str):
            content = terminal_text(content)
        super().__init__(content, classes=f"note -{level}")
        self.level = level
