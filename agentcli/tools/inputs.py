"""The base of tool input models, and the field types for text handed to the system.

Kept apart from tools/base.py because it imports pydantic: it loads with the first
tool module (or the first tool whose schema is not stored), not on every start.
"""

from __future__ import annotations

from functools import cache
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, ConfigDict
from pydantic_core import PydanticCustomError


class ToolInput(BaseModel):
    """Base for tool input models: unknown fields are an error the model can fix."""

    # Every agentcli model is built when first used, not at import (docs/architecture.md,
    # "Start-up"): most runs validate few of them, and building one costs a millisecond.
    model_config = ConfigDict(extra="forbid", populate_by_name=True, defer_build=True)


# What the system takes: a path of at most PATH_MAX bytes, a command-line argument
# (rg's pattern, `bash -c`'s command) of at most MAX_ARG_STRLEN bytes, each with
# its terminating NUL, so none can hold a NUL of its own.
PATH_MAX_BYTES = 4096 - 1
ARG_MAX_BYTES = 128 * 1024 - 1


def _system_text(limit: int, what: str) -> AfterValidator:
    def check(value: str) -> str:
        if "\x00" in value:
            raise PydanticCustomError(
                "nul_byte", "holds a NUL byte (\\x00), which no {what} can contain", {"what": what}
            )
        if len(value) > limit or (len(value) * 4 > limit and _utf8_size(value) > limit):
            raise PydanticCustomError(
                "too_long",
                "is too long: {size} bytes, more than the {limit} a {what} can have",
                {"size": _utf8_size(value), "limit": limit, "what": what},
            )
        return value

    return AfterValidator(check)


def _utf8_size(value: str) -> int:
    return len(value.encode("utf-8", "surrogatepass"))


# Input fields the tool hands to the operating system.
PathText = Annotated[str, _system_text(PATH_MAX_BYTES, "path")]
ArgText = Annotated[str, _system_text(ARG_MAX_BYTES, "command-line argument")]


@cache
def input_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The model's JSON schema, without pydantic's cosmetic `title` keys."""
    schema: dict[str, Any] = _strip_titles(model.model_json_schema())
    return schema


def _strip_titles(node: Any) -> Any:
    if isinstance(node, dict):
        return {
            k: _strip_titles(v)
            for k, v in node.items()
            if not (k == "title" and isinstance(v, str))
        }
    if isinstance(node, list):
        return [_strip_titles(v) for v in node]
    return node
