"""Tool input schemas without `$ref`: each reference replaced by what it names.

pydantic writes a nested model as `{"$ref": "#/$defs/Todo"}` with the model
under `$defs` (TodoWrite's items), and MCP servers' schemas carry references
too. The Messages API resolves them; several OpenAI-compatible servers and
local runtimes do not (they build a grammar or validate from the schema as
written, and refuse or mangle a `$ref`). So the OpenAI providers send each
schema with its references inlined:

- A local reference (`#/$defs/X`, `#/definitions/X`, any `#/...` pointer,
  `#` itself) is replaced by a copy of its target, itself inlined; keys beside
  the `$ref` (a `description`, a `default`) are kept over the target's.
- A recursive schema (a tree whose nodes hold nodes) cannot be inlined fully:
  a definition met again inside its own expansion, or past `MAX_DEPTH` nested
  expansions, becomes a permissive stub, its target's `type` and
  `description` only (`{"type": "object"}`: any object is taken there).
- A reference that cannot be resolved (another document, a pointer to nothing)
  becomes `{}`: anything is taken there, which is what a server that ignores
  references does anyway.
- Expanding stops at `MAX_NODES` inlined nodes (references that fan out
  many times over); the references left become stubs.

`$defs` and `definitions` are left out once inlined. Only schema positions are
walked (`properties`, `items`, `anyOf`, ...): a `default`, `const`, `enum` or
`examples` value that happens to hold a `"$ref"` key is data, copied as it is.
"""

from __future__ import annotations

from typing import Any

MAX_DEPTH = 8  # nested reference expansions on one path
MAX_NODES = 20_000  # schema nodes written by inlining one tool's schema

_SCHEMA_MAPS = frozenset({"properties", "patternProperties", "dependentSchemas"})
_SCHEMA_LISTS = frozenset({"allOf", "anyOf", "oneOf", "prefixItems"})
_SCHEMA_ONE = frozenset(
    {
        "items",  # a schema, or (older drafts) a list of them
        "additionalItems",
        "additionalProperties",
        "unevaluatedItems",
        "unevaluatedProperties",
        "contains",
        "propertyNames",
        "not",
        "if",
        "then",
        "else",
    }
)
_DEFINITIONS = ("$defs", "definitions")


def inline_refs(schema: dict[str, Any]) -> dict[str, Any]:
    """`schema` with every `$ref` inlined (a new dict; `schema` is not changed)."""
    if not _has_ref(schema):
        return schema
    inlined = _Inliner(schema).node(schema, ())
    return inlined if isinstance(inlined, dict) else {}


class _Inliner:
    def __init__(self, root: dict[str, Any]) -> None:
        self.root = root
        self.nodes = 0

    def node(self, value: Any, expanding: tuple[str, ...]) -> Any:
        """A schema (a dict, or a boolean schema) with its references inlined."""
        if not isinstance(value, dict):
            return value
        self.nodes += 1
        ref = value.get("$ref")
        if isinstance(ref, str):
            return self._reference(ref, value, expanding)
        return {
            key: self._keyword(key, item, expanding)
            for key, item in value.items()
            if key not in _DEFINITIONS  # inlined where they are used
        }

    def _keyword(self, key: str, value: Any, expanding: tuple[str, ...]) -> Any:
        if key in _SCHEMA_MAPS:
            if isinstance(value, dict):
                return {name: self.node(item, expanding) for name, item in value.items()}
            return value
        if key in _SCHEMA_LISTS or (key == "items" and isinstance(value, list)):
            if isinstance(value, list):
                return [self.node(item, expanding) for item in value]
            return value
        if key in _SCHEMA_ONE:
            return self.node(value, expanding)
        return value  # data (default, const, enum, examples) or an annotation

    def _reference(self, ref: str, holder: dict[str, Any], expanding: tuple[str, ...]) -> Any:
        siblings = {
            k: self._keyword(k, v, expanding)
            for k, v in holder.items()
            if k != "$ref" and k not in _DEFINITIONS
        }
        target = _resolve(self.root, ref)
        if target is None:
            return siblings  # unresolvable: permissive, with what was said beside it
        if ref in expanding or len(expanding) >= MAX_DEPTH or self.nodes >= MAX_NODES:
            return {**_stub(target), **siblings}
        expanded = self.node(target, (*expanding, ref))
        if not isinstance(expanded, dict):  # a boolean schema
            return siblings or expanded  # with siblings: permissive, never stricter
        return {**expanded, **siblings}


def _resolve(root: dict[str, Any], ref: str) -> Any:
    """The target of a local reference (`#`, `#/a/b`), or None."""
    if ref == "#":
        return root
    if not ref.startswith("#/"):
        return None
    target: Any = root
    for raw in ref[2:].split("/"):
        part = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(target, dict) and part in target:
            target = target[part]
        elif isinstance(target, list) and part.isdigit() and int(part) < len(target):
            target = target[int(part)]
        else:
            return None
    return target if isinstance(target, dict | bool) else None


def _stub(target: Any) -> dict[str, Any]:
    """Where a recursive reference stops: the target's type and description only."""
    if not isinstance(target, dict):
        return {}
    return {k: target[k] for k in ("type", "description") if k in target}


def _has_ref(value: Any) -> bool:
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            if isinstance(item.get("$ref"), str):
                return True
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False
