"""WebSearch's input model (tools/web/search_tool.py), apart because it is pydantic's:
the tool is offered from its class on every start; the model loads with the first
search block that is read back as a call."""

from __future__ import annotations

from pydantic import Field

from agentcli.tools.inputs import ToolInput


class WebSearchInput(ToolInput):
    """What the API's `server_tool_use` of a search holds."""

    query: str = Field(min_length=1)
