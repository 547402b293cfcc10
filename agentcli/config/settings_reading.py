"""Reading a settings file key by key: what cannot be used is named, the rest applies.

A settings file is checked whole first, which is one pass in the usual case. Only when
that fails does this module run: each error's key is dropped, at the smallest part that
can go without changing what the rest means, and the rest is checked again:

  - one rule of `permissions.allow`, `.ask` or `.deny`; one entry of a hook event;
  - one key of `permissions`, `sandbox`, `env` or `providers`; one hook event;
  - any other top-level key.

Each dropped key is a notice naming the key, its line and column, and why (unknown, or
the value and what was expected); a key of Claude Code's that agentcli does not use
(config/claude_code_keys.py) is listed apart, since it is no mistake. A container of the
wrong type goes whole (`"env": []` drops `env`).

Dropping loses protection in one place only: a deny or ask rule that cannot be read, or
a `permissions` that is not an object, means nobody can say what the file meant to
forbid, and `rules_unknown` tells the caller to fail closed (config/settings.py). A bad
hook entry is dropped with a notice like any other key; the hooks that can be read run.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from agentcli.config.claude_code_keys import is_claude_code_key
from agentcli.config.key_positions import KeyPath, KeyPositions
from agentcli.config.settings_schema import SettingsFile

# Each pass drops at least one key; a file that still fails after this many is skipped.
_MAX_PASSES = 20
_EMPTY: tuple[Any, ...] = (None, "", [], {})


@dataclass
class Reading:
    """What one settings file gives once its unusable keys are dropped."""

    data: SettingsFile | None  # None: nothing could be made valid (the file is skipped)
    notices: list[str] = field(default_factory=list)  # "unknown key 'x' (line 1, column 2)"
    unsupported: list[str] = field(default_factory=list)  # Claude Code's keys, with where
    rules_unknown: bool = False  # a deny or ask rule (or `permissions`) could not be read


def read_leniently(raw: dict[str, Any], text: str) -> Reading:
    """The file's valid part, and a notice for each key dropped from it. `raw` is the
    parsed `text`, which has failed validation as a whole."""
    pruned, positions, reading = copy.deepcopy(raw), KeyPositions(text), Reading(None)
    described: list[tuple[tuple[int, int], str, bool]] = []
    for _ in range(_MAX_PASSES):
        try:
            reading.data = SettingsFile.model_validate(pruned)
            break
        except ValidationError as exc:
            errors = exc.errors(include_url=False)
        drops = _drops(pruned, errors)
        if not drops:
            reading.rules_unknown = True  # what is left cannot be read: nothing is trusted
            break
        for path, path_errors in sorted(drops.items(), reverse=True):  # later items first
            value = _remove(pruned, path)
            reading.rules_unknown |= _protects(path, value)
            parts = [_described(error, positions) for error in path_errors]
            texts = "; ".join(text for _at, text, _claude in parts)
            described.append((parts[0][0], texts, all(claude for *_rest, claude in parts)))
    else:
        reading.rules_unknown = True  # what is left cannot be read: nothing in it is trusted
    for _where, text, claude_code_key in sorted(described):  # in the order of the file
        (reading.unsupported if claude_code_key else reading.notices).append(text)
    return reading


def _granule(loc: KeyPath) -> KeyPath:
    """The part of the file an error at `loc` takes with it."""
    head = loc[0] if loc else None
    if head == "hooks" or (head == "permissions" and loc[1:2] in (("allow",), ("ask",), ("deny",))):
        depth = 3
    elif head in ("permissions", "sandbox", "env", "providers"):
        depth = 2
    else:
        depth = 1
    return loc[:depth]


def _drops(pruned: dict[str, Any], errors: list[Any]) -> dict[KeyPath, list[Any]]:
    """Each key to drop (as found in `pruned`), with its errors; none inside another."""
    found: dict[KeyPath, list[Any]] = {}
    for error in errors:
        path = _existing(pruned, _granule(tuple(error["loc"])))
        if path:
            found.setdefault(path, []).append(error)
    inner = [p for p in found if any(p[: len(q)] == q != p for q in found)]
    for path in inner:  # its errors go with the key that holds it
        outer = next(q for q in found if path[: len(q)] == q != path)
        found[outer] += found.pop(path)
    return found


def _existing(data: Any, path: KeyPath) -> KeyPath:
    """The longest start of `path` that is there in `data` (a lone string where a list
    is expected has no items: `"deny": "Bash(rm"` is dropped whole)."""
    kept: list[str | int] = []
    for part in path:
        in_object = isinstance(data, dict) and isinstance(part, str) and part in data
        in_list = isinstance(data, list) and isinstance(part, int) and 0 <= part < len(data)
        if not (in_object or in_list):
            break
        data = data[part]
        kept.append(part)
    return tuple(kept)


def _remove(data: dict[str, Any], path: KeyPath) -> Any:
    parent: Any = data
    for part in path[:-1]:
        parent = parent[part]
    return parent.pop(path[-1])


def _protects(path: KeyPath, value: Any) -> bool:
    """Whether dropping `value` at `path` loses deny or ask rules."""
    if path[:1] != ("permissions",) or (len(path) > 1 and path[1] not in ("deny", "ask")):
        return False
    return len(path) == 3 or not any(value == empty for empty in _EMPTY)


def _described(error: Any, positions: KeyPositions) -> tuple[tuple[int, int], str, bool]:
    """(where, the notice, whether the key is Claude Code's): "unknown key 'x' (line 1,
    column 2)", "model (line 2, column 3): Input should be a valid string (found 3)"."""
    loc = tuple(error["loc"])
    position = positions.of(loc)
    where = f" (line {position[0]}, column {position[1]})" if position else ""
    key = ".".join(str(part) for part in loc) or "(top level)"
    at = position or (0, 0)
    if error["type"] != "extra_forbidden":
        message = error["msg"].removeprefix("Value error, ")
        return at, f"{key}{where}: {message} (found {error.get('input')!r})", False
    if is_claude_code_key(loc):
        shown = f"hook event {loc[1]!r}" if loc[0] == "hooks" else repr(key)
        return at, f"{shown}{where}", True
    if len(loc) == 2 and loc[0] == "hooks":
        return at, f"unknown hook event {loc[1]!r}{where}", False
    return at, f"unknown key {key!r}{where}", False
