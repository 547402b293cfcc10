"""StructuredOutput: the model's final answer as a JSON object that matches a schema.

`--json-schema` (the Agent SDK's `output_format`) offers this tool, with that
schema as its input schema, and asks the model to call it once at the end.
The front end reports the input of the last call that matched as the result's
`structured_output`. An input that does not match is an error result that
says why, so the model can try again. The call changes nothing: it never
needs permission.
"""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import ConfigDict

from agentcli.tools.base import Tool, ToolContext, ToolResult
from agentcli.tools.inputs import ToolInput

NAME = "StructuredOutput"
INSTRUCTION = (
    f"When you have finished, give your final answer by calling the {NAME} tool once, "
    "with an object that matches its input schema."
)
MAX_PROBLEMS = 5


class StructuredOutputInput(ToolInput):
    """Any object: the tool checks it against the schema itself, to say what is wrong."""

    model_config = ConfigDict(extra="allow", defer_build=True)


class StructuredOutputTool(Tool):
    name = NAME
    input_model = StructuredOutputInput
    read_only: ClassVar[bool] = True

    def __init__(self, output_schema: dict[str, Any]) -> None:
        self.output_schema = output_schema

    @property
    def description(self) -> str:
        return f"Give your final answer as structured data. {INSTRUCTION}"

    def schema(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "description": self.description,
            "input_schema": {**self.output_schema, "type": "object"},
        }

    async def run(self, inp: Any, ctx: ToolContext) -> ToolResult:
        problems = [e.message for e in _validator(self.output_schema).iter_errors(output_of(inp))]
        if problems:
            listed = "; ".join(sorted(problems)[:MAX_PROBLEMS])
            return ToolResult(
                f"The output does not match the schema: {listed}. Call {NAME} again with a "
                "corrected object.",
                is_error=True,
            )
        return ToolResult("Structured output received.")


def output_of(inp: Any) -> dict[str, Any]:
    """The object the model gave (the input model keeps it as extra fields)."""
    extra = getattr(inp, "model_extra", None)
    return dict(extra) if extra else {}


def _validator(schema: dict[str, Any]) -> Any:
    """jsonschema's validator, imported only when a run has --json-schema (it costs a
    run that has none about 50 ms of start-up)."""
    from jsonschema import Draft202012Validator

    return Draft202012Validator(schema)
