"""Where agentcli keeps its files: everything under AGENTCLI_HOME (default ~/.agentcli).

Nothing is written anywhere else, so a test (or a person) can isolate a run
by pointing AGENTCLI_HOME at a scratch folder.
"""

from __future__ import annotations

import os
import re
from pathlib import Path


def agentcli_home() -> Path:
    configured = os.environ.get("AGENTCLI_HOME")
    return Path(configured).expanduser() if configured else Path.home() / ".agentcli"


def project_key(project: Path) -> str:
    """A folder name for a project: its absolute path with separators flattened."""
    return re.sub(r"[^A-Za-z0-9._-]", "-", str(project.resolve())).strip("-") or "root"


def project_dir(project: Path) -> Path:
    return agentcli_home() / "projects" / project_key(project)
