"""Text every consumer can take: no lone surrogates in the conversation or in JSON lines.

The model's tool input arrives as JSON the model wrote itself, so it can hold
`\\ud800`, half of a UTF-16 pair, which `json.loads` turns into a lone
surrogate: a Python string that cannot be encoded as UTF-8. File names that
are not UTF-8 come out of `os.listdir` the same way. One such character in the
conversation and every later request is refused by the API ("no low
surrogate in string"), the transcript cannot be written, and a terminal
cannot print it. So the engine keeps them out of the conversation (`scrub`),
refuses tool calls that hold them (`has_lone_surrogate`), and JSON lines are
written so that they always encode (`json_line`).
"""

from __future__ import annotations

import json
import re
from typing import Any

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
REPLACEMENT = "\ufffd"


def _bad(text: str) -> bool:
    return not text.isascii() and _LONE_SURROGATE.search(text) is not None


def has_lone_surrogate(value: Any) -> bool:
    """True when a string anywhere in `value` (keys included) holds a lone surrogate."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if _bad(item):
                return True
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list | tuple):
            stack.extend(item)
    return False


def scrub(value: Any) -> Any:
    """`value` with each lone surrogate replaced by U+FFFD; `value` itself when it has none.

    Works on JSON-shaped data (str, dict, list) of any depth, without recursion.
    """
    if not has_lone_surrogate(value):
        return value
    holder: list[Any] = [None]
    stack: list[tuple[Any, Any, Any]] = [(value, holder, 0)]
    while stack:
        item, target, key = stack.pop()
        if isinstance(item, str):
            target[key] = _LONE_SURROGATE.sub(REPLACEMENT, item)
        elif isinstance(item, dict):
            copy: dict[Any, Any] = {}
            target[key] = copy
            for name, child in item.items():
                name = _LONE_SURROGATE.sub(REPLACEMENT, name) if isinstance(name, str) else name
                copy[name] = None
                stack.append((child, copy, name))
        elif isinstance(item, list | tuple):
            items: list[Any] = [None] * len(item)
            target[key] = items
            stack.extend((child, items, index) for index, child in enumerate(item))
        else:
            target[key] = item
    return holder[0]


def json_line(value: Any, **options: Any) -> str:
    """`json.dumps(value, ensure_ascii=False)`, as text that always encodes as UTF-8.

    A lone surrogate is written as its `\\u` escape instead (the whole line is
    then ASCII), which `json.loads` reads back as the same string.
    """
    text = json.dumps(value, ensure_ascii=False, **options)
    if _bad(text):
        return json.dumps(value, ensure_ascii=True, **options)
    return text
