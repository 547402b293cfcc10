"""Each built-in tool reaches an editor with a kind of ACP's own (the icon and grouping
an editor shows), so a tool added later gets one by decision, not by default."""

from __future__ import annotations

import typing

from acp.schema import ToolCallStart

from agentcli.frontends.acp.updates import TOOL_KINDS
from agentcli.tools.registry import STORED_TOOLS


def test_every_built_in_tool_has_an_acp_kind():
    built_in = {name for name, _target in STORED_TOOLS} | {"Task", "Skill"}

    assert sorted(built_in - set(TOOL_KINDS)) == []


def test_the_kinds_are_ones_the_protocol_knows():
    kind_type = ToolCallStart.model_fields["kind"].annotation
    known = {arg for part in typing.get_args(kind_type) for arg in typing.get_args(part) or (part,)}

    assert set(TOOL_KINDS.values()) <= known
