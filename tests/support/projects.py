"""The `project` fixtures: the folder a test's agentcli works in.

tests/conftest.py gives every test `project`, an empty folder. A folder whose tests
script turns that read and edit a file re-exports one of the seeded variants below
from its conftest (`from tests.support.projects import project_with_config  # noqa`),
which then is that folder's `project`. A test file whose project is a scene of its
own (tests/permissions' attack files) keeps its own fixture.
"""

from __future__ import annotations

from pathlib import Path

import pytest


def new_project(tmp_path: Path, files: dict[str, str] | None = None) -> Path:
    """`tmp_path/project`, holding `files` (relative path: text)."""
    root = tmp_path / "project"
    root.mkdir()
    for relative, text in (files or {}).items():
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text(text)
    return root


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """An empty project folder."""
    return new_project(tmp_path)


@pytest.fixture(name="project")
def project_with_config(tmp_path: Path) -> Path:
    """A project holding `config.py` (`value = 1`): what the scripted turns read and edit."""
    return new_project(tmp_path, {"config.py": "value = 1\n"})


@pytest.fixture(name="project")
def project_with_a_module(tmp_path: Path) -> Path:
    """A project holding `a.py` (`A = 1`): what the scripted subagents look for."""
    return new_project(tmp_path, {"a.py": "A = 1\n"})
