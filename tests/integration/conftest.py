"""A project folder for the tests that run the real binary in it: `config.py` to edit."""

from __future__ import annotations

from tests.support.projects import project_with_config  # noqa: F401  (this folder's `project`)
