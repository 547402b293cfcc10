"""A tool call's input, streamed as JSON text in pieces, parsed once it is complete.

Every provider gets a call's input this way (Anthropic's `input_json_delta`,
OpenAI's function-call `arguments`), and every one hands the engine the same
thing: a dict, or the `__invalid_json__` marker the engine answers with an
error result the model can fix.
"""

from __future__ import annotations

import json
from typing import Any


def parse_tool_input(text: str) -> dict[str, Any]:
    """Parse the streamed input JSON. Invalid JSON becomes a marker the engine reports.

    Only JSON the API would take back in the next request counts: not Python's
    NaN and Infinity, nor nesting deeper than the parser's recursion limit.
    """
    if not text.strip():
        return {}
    try:
        value = json.loads(text, parse_constant=_refuse_constant)
    except (ValueError, RecursionError):
        return {"__invalid_json__": text}
    return value if isinstance(value, dict) else {"__invalid_json__": text}


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")
