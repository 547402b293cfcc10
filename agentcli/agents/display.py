"""What a finished Task call shows the person: which subagent did what, at what cost.

The model itself is in tools/display.py beside the tools' (the Task tool's display,
known to `load_display` whenever displays are, so a transcript's subagent calls read
back wherever it is loaded); this is its name in the agents' package.
"""

from __future__ import annotations

from agentcli.tools.display import SubagentDisplay as SubagentDisplay
