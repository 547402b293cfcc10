"""A project folder for the subagent tests: `a.py`, what the scripted subagents look for."""

from __future__ import annotations

from tests.support.projects import project_with_a_module  # noqa: F401  (this folder's `project`)
