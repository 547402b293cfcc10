"""BashOutput's `filter`: the model's regular expression, at a bounded cost.

A pattern like `(a+)+$` backtracks exponentially on a line of "a"s that does not end
the way it wants. Python's `re` holds the GIL and looks at no clock while it matches,
so one such line in a task's output would stall the whole app (the prompt, the
stream, every other task) for ever. The filter runs with the `regex` module instead:
the syntax of `re` for what a model writes, plus a timeout and matching with the GIL
released, in a thread, within `BUDGET_S` for the whole output. Past that it gives up;
the caller then shows the output unfiltered, so nothing read is lost.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from agentcli.tools.errors import ToolError

BUDGET_S = 2.0


class FilterTooSlow(Exception):
    """The pattern took more than the budget on this output."""


class LineFilter:
    """The lines a pattern finds something in, as `re.search` on each line would say.

    Searching line by line costs a call (and a clock reading) per line, seconds for a
    big output; so the pattern searches the whole text in multi-line mode, a call per
    matching line, and a match that runs past its line's end is checked again on its
    line alone (a per-line search would not have seen the next line).
    """

    def __init__(self, pattern: str) -> None:
        import regex  # only BashOutput's filter needs it

        try:
            self._per_line = regex.compile(pattern, regex.VERSION0)
            self._whole = regex.compile(pattern, regex.VERSION0 | regex.MULTILINE)
        except (regex.error, ValueError, OverflowError) as exc:
            raise ToolError(f"The filter is not a valid regular expression: {exc}.") from None

    async def matching_lines(self, text: str, budget_s: float = BUDGET_S) -> str:
        """The matching lines of `text`; FilterTooSlow past the budget."""
        return await asyncio.to_thread(self._matching_lines, text, budget_s)

    def _matching_lines(self, text: str, budget_s: float) -> str:
        deadline = time.monotonic() + budget_s
        kept: list[str] = []
        pos = 0
        while pos < len(text):
            found = self._search(self._whole, text, pos, deadline)
            if found is None:
                break
            start = text.rfind("\n", 0, found.start()) + 1
            newline = text.find("\n", found.start())
            end = len(text) if newline < 0 else newline + 1
            line = text[start:end]
            if found.end() <= end or self._search(self._per_line, line, 0, deadline):
                kept.append(line)
            pos = end
        return "".join(kept)

    @staticmethod
    def _search(pattern: Any, text: str, pos: int, deadline: float) -> Any:
        left = deadline - time.monotonic()
        if left <= 0:
            raise FilterTooSlow
        try:
            return pattern.search(text, pos, concurrent=True, timeout=left)
        except TimeoutError:
            raise FilterTooSlow from None
