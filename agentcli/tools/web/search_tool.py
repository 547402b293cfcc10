"""WebSearch: the Messages API's own web search, offered to the model in requests.

The API runs the searches while the model answers; their blocks
(`server_tool_use`, `web_search_tool_result`) stream, are kept in the
conversation and the transcript, and are sent back unchanged, like any other
content (tools/server_tool.py says how such a tool is offered). `max_uses`
bounds the searches of one answer.
"""

from __future__ import annotations

from typing import Any, ClassVar

from agentcli.tools.base import InputModelAt, Workspace
from agentcli.tools.server_tool import ServerTool

MAX_USES = 5


class WebSearchTool(ServerTool):
    name = "WebSearch"
    input_model = InputModelAt("agentcli.tools.web.search_input:WebSearchInput")
    definition: ClassVar[dict[str, Any]] = {
        "type": "web_search_20250305",
        "name": "web_search",
        "max_uses": MAX_USES,
    }

    @property
    def description(self) -> str:
        return "Searches the web (run by the API while the model answers)."

    def summary(self, inp: Any, workspace: Workspace) -> str:
        return str(inp.query)
