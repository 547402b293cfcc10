"""`ToolError`, on its own so that what the tools' base imports (the background tasks'
registry, tools/background/tasks.py) can raise it without importing the base back."""

from __future__ import annotations


class ToolError(Exception):
    """Raise from `run()` to give the model an `is_error` result with this message."""
