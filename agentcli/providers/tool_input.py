"""A tool call's input, streamed as JSON text in pieces, parsed once it is complete.

Every provider gets a call's input this way (Anthropic's `input_json_delta`,
OpenAI's function-call `arguments`), and every one hands the engine the same
thing: a dict, or the `__invalid_json__` marker (holding the text the model
wrote) when the text is not one JSON object. The engine answers a marked call
with an error result saying what was wrong (`input_problem`), and never runs
it; a provider that replays the call in a later request sends `{}` in its place
(`arguments_text`), since strict servers (vLLM, llama.cpp) refuse a whole
conversation whose history holds arguments they cannot parse as an object.
"""

from __future__ import annotations

import json
from typing import Any

INVALID = "__invalid_json__"
EXCERPT_CHARS = 300  # how much of a bad input the error result quotes


def parse_tool_input(text: str) -> dict[str, Any]:
    """Parse the streamed input JSON. Anything but one JSON object becomes the marker.

    Only JSON the API would take back in the next request counts: not Python's
    NaN and Infinity, nor nesting deeper than the parser's recursion limit.
    """
    if not text.strip():
        return {}
    try:
        value = json.loads(text, parse_constant=_refuse_constant)
    except (ValueError, RecursionError):
        return {INVALID: text}
    return value if isinstance(value, dict) else {INVALID: text}


def is_marked(tool_input: Any) -> bool:
    """True for the marker of input that was not one JSON object."""
    return isinstance(tool_input, dict) and isinstance(tool_input.get(INVALID), str)


def input_problem(tool_name: str, text: str) -> str:
    """The error result for input `text` that is not one JSON object: what is wrong,
    where, and the start of what was sent (the replayed call shows `{}` instead)."""
    excerpt = text if len(text) <= EXCERPT_CHARS else f"{text[:EXCERPT_CHARS]}…"
    return (
        f"Invalid input for {tool_name}: {_what_is_wrong(text)}. Nothing was run. "
        f"The input sent was ({len(text):,} characters): {excerpt}\n"
        "Call the tool again with its input as one JSON object."
    )


def arguments_text(tool_input: Any) -> str:
    """A tool call's input as the JSON object text a later request replays: `{}` for
    input that was not an object (the error result says what it was)."""
    if not isinstance(tool_input, dict) or is_marked(tool_input):
        return "{}"
    return json.dumps(tool_input, ensure_ascii=False)


def _what_is_wrong(text: str) -> str:
    try:
        value = json.loads(text, parse_constant=_refuse_constant)
    except RecursionError:
        return "the input is not valid JSON (it nests too deep)"
    except json.JSONDecodeError as error:
        where = f"{error.msg} at line {error.lineno}, column {error.colno}"
        cut = "; it looks cut off" if error.pos >= len(text.rstrip()) else ""
        return f"the input is not valid JSON ({where}{cut})"
    except ValueError as error:  # NaN, Infinity
        return f"the input is not valid JSON ({error})"
    return f"the input must be a JSON object, not {kind_of(value)}"


def kind_of(value: Any) -> str:
    """What a JSON value is, in words: `an array`, `a string`, `null`."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return type(value).__name__


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")
