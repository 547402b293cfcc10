"""Where agentcli keeps its files: everything under AGENTCLI_HOME (default ~/.agentcli).

Nothing is written anywhere else, so a test (or a person) can isolate a run
by pointing AGENTCLI_HOME at a scratch folder. Claude Code's folder is read too
(its settings.json), never written.
"""

from __future__ import annotations

import os
import re
from pathlib import Path


def agentcli_home() -> Path:
    configured = os.environ.get("AGENTCLI_HOME")
    return Path(configured).expanduser() if configured else Path.home() / ".agentcli"


def claude_config_dir() -> Path:
    """Claude Code's own folder, `CLAUDE_CONFIG_DIR` (default ~/.claude): agentcli only
    reads its settings.json (config/settings.py), never writes there."""
    configured = os.environ.get("CLAUDE_CONFIG_DIR")
    return Path(configured).expanduser() if configured else Path.home() / ".claude"


def project_key(project: Path) -> str:
    """A folder name for a project: its absolute path with separators flattened."""
    return re.sub(r"[^A-Za-z0-9._-]", "-", str(project.resolve())).strip("-") or "root"


def project_dir(project: Path) -> Path:
    return agentcli_home() / "projects" / project_key(project)
