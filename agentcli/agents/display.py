"""What a finished Task call shows the person: which subagent did what, at what cost.

A display model like the tools' (tools/display.py): data that front ends
draw their own way and that the transcript keeps with the call's result, so
the link to the subagent's own transcript (`transcript`) stays with the
parent's record of the call.
"""

from __future__ import annotations

from typing import Literal

from agentcli.tools.display import ToolDisplay


class SubagentDisplay(ToolDisplay):
    """`status`: how its run ended (completed, interrupted, failed)."""

    type: Literal["subagent"] = "subagent"
    agent_type: str
    description: str
    status: str
    tool_uses: int
    tokens: int
    transcript: str | None = None
