"""Tool schemas sent without `$ref` (providers/schema_refs.py): what each one meant is kept.

The property that matters: where a schema can be inlined fully, the inlined
schema accepts and refuses exactly the inputs the original did (checked with
jsonschema on both); where it cannot (recursion), the stub only ever accepts
more, never less, so a valid call is never refused by the schema it was sent.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import jsonschema
import pytest
from pydantic import BaseModel

from agentcli.providers.schema_refs import MAX_DEPTH, inline_refs
from agentcli.tools.inputs import input_schema
from agentcli.tools.registry import builtin_tools


def refs_in(schema: Any) -> list[str]:
    found, stack = [], [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            if isinstance(node.get("$ref"), str):
                found.append(node["$ref"])
            stack.extend(v for k, v in node.items() if k not in ("default", "const", "enum"))
        elif isinstance(node, list):
            stack.extend(node)
    return found


def same_verdicts(original: dict[str, Any], inlined: dict[str, Any], instances: list[Any]) -> None:
    for instance in instances:
        before = jsonschema.Draft202012Validator(original).is_valid(instance)
        after = jsonschema.Draft202012Validator(inlined).is_valid(instance)
        assert before == after, (instance, before, after)


class Address(BaseModel):
    street: str
    city: str


class Person(BaseModel):
    """Someone with addresses."""

    name: str
    home: Address
    others: list[Address] = []
    best_friend_address: Address | None = None


def test_pydantic_nested_models_are_inlined_and_mean_the_same():
    original = Person.model_json_schema()
    assert refs_in(original)  # pydantic does write references

    inlined = inline_refs(original)

    assert refs_in(inlined) == [] and "$defs" not in json.dumps(inlined)
    same_verdicts(
        original,
        inlined,
        [
            {"name": "a", "home": {"street": "s", "city": "c"}},
            {"name": "a", "home": {"street": "s"}},
            {"name": "a", "home": {"street": "s", "city": "c"}, "others": [{"city": 1}]},
            {"name": "a", "home": {"street": "s", "city": "c"}, "best_friend_address": None},
            {"name": "a", "home": {"street": "s", "city": "c"}, "best_friend_address": {}},
            {"home": {"street": "s", "city": "c"}},
        ],
    )


def test_every_builtin_tool_schema_goes_without_references():
    schemas = [tool.schema() for tool in builtin_tools()]
    assert any(refs_in(schema) for schema in schemas)  # TodoWrite's items
    for schema in schemas:
        if "input_schema" in schema:  # not a server tool (web search)
            assert refs_in(inline_refs(schema["input_schema"])) == [], schema["name"]


def test_the_schema_given_is_not_changed():
    original = Person.model_json_schema()
    kept = copy.deepcopy(original)

    inline_refs(original)

    assert original == kept


def test_keys_beside_a_reference_win_over_its_targets():
    schema = {
        "type": "object",
        "properties": {"when": {"$ref": "#/$defs/Day", "description": "the day it is due"}},
        "$defs": {"Day": {"type": "string", "description": "a date", "format": "date"}},
    }

    inlined = inline_refs(schema)

    assert inlined["properties"]["when"] == {
        "type": "string",
        "description": "the day it is due",
        "format": "date",
    }


def test_a_recursive_schema_stops_at_a_permissive_stub():
    schema = {
        "type": "object",
        "properties": {"tree": {"$ref": "#/definitions/Node"}},
        "definitions": {
            "Node": {
                "type": "object",
                "description": "a node of the tree",
                "properties": {
                    "name": {"type": "string"},
                    "children": {"type": "array", "items": {"$ref": "#/definitions/Node"}},
                },
                "required": ["name"],
            }
        },
    }

    inlined = inline_refs(schema)

    assert refs_in(inlined) == []
    node = inlined["properties"]["tree"]
    assert node["required"] == ["name"]
    assert node["properties"]["children"]["items"] == {
        "type": "object",
        "description": "a node of the tree",
    }
    deep = {"name": "a", "children": [{"name": "b", "children": [{"name": "c"}]}]}
    for tree in (deep, {"name": "a"}, {"name": "a", "children": [{"name": "b"}]}):
        jsonschema.validate({"tree": tree}, schema)
        jsonschema.validate({"tree": tree}, inlined)  # what was valid still is


def test_the_root_referring_to_itself_and_unresolvable_references():
    schema = {
        "type": "object",
        "properties": {
            "again": {"$ref": "#"},
            "remote": {"$ref": "https://example.com/schema.json", "description": "elsewhere"},
            "missing": {"$ref": "#/$defs/Nothing"},
            "odd~name": {"type": "integer"},
            "pointer": {"$ref": "#/properties/odd~0name"},
        },
    }

    inlined = inline_refs(schema)

    assert refs_in(inlined) == []
    assert inlined["properties"]["again"]["properties"]["again"] == {"type": "object"}
    assert inlined["properties"]["remote"] == {"description": "elsewhere"}
    assert inlined["properties"]["missing"] == {}
    assert inlined["properties"]["pointer"] == {"type": "integer"}


def test_data_that_looks_like_a_reference_is_left_alone():
    schema = {
        "type": "object",
        "properties": {
            "doc": {"type": "object", "default": {"$ref": "#/x"}, "const": {"$ref": "y"}},
            "$ref": {"$ref": "#/$defs/S"},  # a property named "$ref"
        },
        "$defs": {"S": {"type": "string"}},
    }

    inlined = inline_refs(schema)

    assert inlined["properties"]["doc"]["default"] == {"$ref": "#/x"}
    assert inlined["properties"]["doc"]["const"] == {"$ref": "y"}
    assert inlined["properties"]["$ref"] == {"type": "string"}


def test_references_that_fan_out_are_bounded():
    """Each level refers to the next twice: fully inlined, 2**40 nodes."""
    levels = 40
    defs = {
        f"L{i}": {
            "type": "object",
            "properties": {"a": {"$ref": f"#/$defs/L{i + 1}"}, "b": {"$ref": f"#/$defs/L{i + 1}"}},
        }
        for i in range(levels)
    }
    defs[f"L{levels}"] = {"type": "string"}
    schema = {"type": "object", "properties": {"top": {"$ref": "#/$defs/L0"}}, "$defs": defs}

    inlined = inline_refs(schema)

    assert refs_in(inlined) == []
    assert len(json.dumps(inlined)) < 5_000_000


def test_nesting_deeper_than_the_bound_ends_in_stubs():
    defs = {
        f"L{i}": {"type": "object", "properties": {"next": {"$ref": f"#/$defs/L{i + 1}"}}}
        for i in range(MAX_DEPTH + 5)
    }
    defs[f"L{MAX_DEPTH + 5}"] = {"type": "string"}
    schema = {"type": "object", "properties": {"top": {"$ref": "#/$defs/L0"}}, "$defs": defs}

    inlined = inline_refs(schema)

    assert refs_in(inlined) == []
    depth, node = 0, inlined["properties"]["top"]
    while "properties" in node:
        depth, node = depth + 1, node["properties"]["next"]
    assert depth == MAX_DEPTH and node == {"type": "object"}


@pytest.mark.parametrize("schema", [{"type": "object"}, input_schema(Address)])
def test_a_schema_without_references_is_sent_as_it_is(schema):
    assert inline_refs(schema) is schema
