"""The built-in tools' input schemas, stored beside the code (`stored_schemas.json`).

Offering a tool to the model takes its name, description and input schema; the
schema is what its pydantic input model says, and building that model means
importing the tool. So the schemas are written once to a file that ships with
the package, and the registry offers each tool from it without importing the
tool (tools/lazy.py). The file is made from the real models by

    python -m agentcli.tools.write_stored_schemas

and `tests/tools/test_lazy_tools.py` fails, naming that command, when it no
longer matches them (a field or its description changed), so the model is
never offered a schema the tool would not accept. What the file holds per
tool: the prompt file its description comes from and the input schema, in the
key order pydantic gives it (the tool list is part of the cached prompt prefix,
so it must be the same bytes either way). A tool that is not in the file is
imported at start as before (tools/registry.py).
"""

from __future__ import annotations

import json
from functools import cache
from importlib import import_module
from pathlib import Path
from typing import Any

SCHEMA_FILE = Path(__file__).with_name("stored_schemas.json")


@cache
def _stored() -> dict[str, dict[str, Any]]:
    entries: dict[str, dict[str, Any]] = json.loads(SCHEMA_FILE.read_text("utf-8"))
    return entries


def is_stored(name: str) -> bool:
    """Whether the tool `name` is offered from the file (so imported only when used)."""
    return name in _stored()


def stored_input_schema(name: str) -> dict[str, Any]:
    schema: dict[str, Any] = _stored()[name]["input_schema"]
    return schema


def stored_prompt_file(name: str) -> str:
    prompt_file: str = _stored()[name]["prompt_file"]
    return prompt_file


def current_entries(where: dict[str, str]) -> dict[str, dict[str, Any]]:
    """What the file should hold for the tools `where` names ({name: "module:Class"}),
    from the tools themselves (imported): every tool whose definition is the plain one
    (`Tool.schema`: its prompt file and its input model's schema); a tool that defines
    its own (a `ServerTool`) is left out, and stays imported at start."""
    from agentcli.tools.base import Tool, load_prompt
    from agentcli.tools.inputs import input_schema

    entries: dict[str, dict[str, Any]] = {}
    for name, spec in where.items():
        module_name, class_name = spec.split(":")
        tool_class = getattr(import_module(module_name), class_name)
        if tool_class.schema is not Tool.schema or tool_class.description is not Tool.description:
            continue
        tool = tool_class()
        if tool.name != name:
            raise ValueError(f"{spec} is named {tool.name!r}, not {name!r}")
        prompt_file = tool.prompt_file or f"{name.lower()}.md"
        if tool.description != load_prompt(prompt_file):
            continue  # a description made otherwise: the tool stays imported at start
        entries[name] = {"prompt_file": prompt_file, "input_schema": input_schema(tool.input_model)}
    return entries


def file_text(entries: dict[str, dict[str, Any]]) -> str:
    return json.dumps(entries, indent=2, ensure_ascii=False) + "\n"
