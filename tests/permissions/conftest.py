"""Fixtures of the sandbox attack files (tests/permissions/sandbox_scene.py)."""

from tests.permissions.sandbox_scene import home_outside_tmp, scene  # noqa: F401  (fixtures)
