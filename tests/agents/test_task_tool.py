"""The Task tool's definition: its input schema is written out in agents/task_tool.py
(so offering the tool builds no model) and must stay what the input model says, to
the byte (the tool list is part of the cached prompt prefix)."""

from __future__ import annotations

import json

from agentcli.agents.task_input import TaskInput
from agentcli.agents.task_tool import TASK_INPUT_SCHEMA
from agentcli.tools.inputs import input_schema


def test_the_written_out_schema_is_the_input_models_own():
    assert json.dumps(TASK_INPUT_SCHEMA) == json.dumps(input_schema(TaskInput)), (
        "TaskInput changed: update TASK_INPUT_SCHEMA to input_schema(TaskInput)"
    )
