"""Long pastes fold into a placeholder, in the prompt and in the conversation.

A pasted log of 5,000 lines would bury the prompt (and the conversation) under
text the person has already seen. It shows as `[Pasted text #1 +5000 lines]`
instead, the pasted text is kept here, and the full text is what the model
gets: `expand()` puts it back when the prompt is sent. Placeholders are
numbered for the whole session, so one that was edited by hand (say, half
deleted) no longer matches and is sent as the person left it, never as some
other paste.
"""

from __future__ import annotations

import re

# A paste longer than either of these is folded (shorter ones are typed-in text).
FOLD_LINES = 10
FOLD_CHARS = 1000

_PLACEHOLDER = re.compile(r"\[Pasted text #(\d+) \+\d+ lines?\]")
_CARRIAGE_RETURN = re.compile(r"\r\n?")


def normalise_newlines(text: str) -> str:
    """Terminals deliver a paste's line breaks as CR (the Enter key), sometimes CRLF;
    the prompt (like the TextArea it is) keeps LF."""
    return _CARRIAGE_RETURN.sub("\n", text)


def is_long(text: str) -> bool:
    return len(text) > FOLD_CHARS or text.count("\n") >= FOLD_LINES


def placeholder(number: int, text: str) -> str:
    lines = text.count("\n") + (0 if text.endswith("\n") else 1)
    return f"[Pasted text #{number} +{lines} line{'s' if lines != 1 else ''}]"


class PastedTexts:
    """The session's folded pastes, by number."""

    def __init__(self) -> None:
        self._texts: dict[int, str] = {}

    def fold(self, text: str) -> str:
        """What to insert for a paste: the text itself when short, else a placeholder."""
        text = normalise_newlines(text)
        if not is_long(text):
            return text
        number = len(self._texts) + 1
        self._texts[number] = text
        return placeholder(number, text)

    def expand(self, prompt: str) -> str:
        """The prompt with every placeholder of this session replaced by its text."""
        if "[Pasted text #" not in prompt:
            return prompt

        def restore(match: re.Match[str]) -> str:
            return self._texts.get(int(match.group(1)), match.group(0))

        return _PLACEHOLDER.sub(restore, prompt)
