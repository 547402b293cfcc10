"""The app's helpers get a narrow Protocol, never the app: none of them imports AgentApp
(at the top, in a function or for type checking), so they form no circle with it; and
the slash commands import no front end (the app is their CommandHost)."""

from __future__ import annotations

import ast
from pathlib import Path

import agentcli

PACKAGE = Path(agentcli.__file__).parent
TUI = PACKAGE / "frontends" / "tui"
APP_MODULE = "agentcli.frontends.tui.app"
# Only the launcher (which makes and runs the app) may import it.
MAY_IMPORT_THE_APP = {TUI / "launch.py", TUI / "app.py"}


def imported_modules(path: Path) -> set[str]:
    """Every module `path` imports, wherever the import statement is."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def test_no_part_of_the_app_imports_the_app():
    importers = [
        str(path.relative_to(PACKAGE))
        for path in sorted(TUI.rglob("*.py"))
        if path not in MAY_IMPORT_THE_APP and APP_MODULE in imported_modules(path)
    ]
    assert importers == []


def test_the_slash_commands_import_no_front_end():
    arrows = [
        f"{path.relative_to(PACKAGE)} -> {module}"
        for path in sorted((PACKAGE / "commands").rglob("*.py"))
        for module in sorted(imported_modules(path))
        if module.startswith("agentcli.frontends")
    ]
    assert arrows == []
