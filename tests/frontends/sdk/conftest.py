"""A project folder for the SDK tests: `config.py` to edit."""

from __future__ import annotations

from tests.support.projects import project_with_config  # noqa: F401  (this folder's `project`)
