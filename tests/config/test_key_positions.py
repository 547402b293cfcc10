"""Finding where a key path sits in a JSON text, for "line 3, column 5" in settings errors."""

from __future__ import annotations

import json

import pytest

from agentcli.config.key_positions import KeyPositions

TEXT = """{
  "note": "a value with \\"deny\\": inside, and { [ , : brackets",
  "deny": 1,
  "permissions": {
    "deny": ["Read", {"a": [10, 20]}],
    "alow": []
  }
}"""


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        (("deny",), (3, 3)),  # the top-level key, not the one inside permissions
        (("permissions",), (4, 3)),
        (("permissions", "deny"), (5, 5)),
        (("permissions", "deny", 0), (5, 14)),
        (("permissions", "deny", 1, "a", 1), (5, 33)),
        (("permissions", "alow"), (6, 5)),
        (("permissions", "missing"), (4, 3)),  # the deepest part that exists
        (("nowhere",), None),
    ],
)
def test_key_paths_are_found_where_they_are_written(path, expected):
    json.loads(TEXT)  # the walker is only ever given valid JSON
    assert KeyPositions(TEXT).of(path) == expected
