"""The arrows between agentcli's packages point down only.

Every module of `agentcli/` belongs to one layer of the table below. A module
may import its own layer and any layer below it, never one above: the engine
does not know its front ends, tools and providers do not know the engine that
calls them, settings do not know the command line. Every import counts, at the
top of a module or inside a function, and those under `TYPE_CHECKING` too.

A new package must be given a layer here before it can be imported; an arrow
that points up is fixed where it starts (move the shared thing down), not
allowed here. docs/architecture.md draws the same picture.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

from tests.support.sources import PACKAGE, python_files, tree_of

# Top to bottom. The modules of one layer may import each other. A module belongs to
# the layer of its longest prefix here (`agentcli.mcp.config` is settings, the rest
# of `agentcli.mcp` a service).
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    # argv, the subcommands, start-up (`agentcli/cli/`)
    ("command line", ("agentcli.__main__", "agentcli.cli")),
    (
        "front ends",  # what a person or a program drives the engine through
        (
            "agentcli.frontends",  # tui, headless, sdk, acp, and what they share
            # Slash commands still reach into the app (issue: commands -> tui).
            "agentcli.commands",
        ),
    ),
    ("wiring", ("agentcli.wiring",)),  # options -> settings -> the one composition root
    ("agents", ("agentcli.agents",)),  # subagents: kinds, the Task tool, running one
    ("engine", ("agentcli.engine",)),  # the loop, its events, context care
    (
        "services",  # what the engine drives; peers, they may use each other
        (
            "agentcli.permissions",
            "agentcli.hooks",
            "agentcli.tools",
            "agentcli.providers",
            "agentcli.session",
            "agentcli.sandbox",
            "agentcli.mcp",  # MCP servers: connections, their tools and resources
            "agentcli.skills",  # SKILL.md folders and the Skill tool
        ),
    ),
    # settings files, paths, trust; MCP's configuration beside its client
    ("config", ("agentcli.config", "agentcli.mcp.config")),
    ("core", ("agentcli.core",)),  # shared types and text safety, no agentcli imports
)
ROOT_LAYER = "core"  # `agentcli` itself: only `__version__`


@dataclass(frozen=True)
class Arrow:
    source: str  # the importing module
    target: str  # the imported module
    line: int


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def known_modules() -> dict[str, Path]:
    return {module_name(path): path for path in python_files(PACKAGE)}


def layer_of(module: str) -> int | None:
    if module == "agentcli":
        return [name for name, _ in LAYERS].index(ROOT_LAYER)
    matches = [
        (len(prefix), index)
        for index, (_name, prefixes) in enumerate(LAYERS)
        for prefix in prefixes
        if module == prefix or module.startswith(prefix + ".")
    ]
    return max(matches)[1] if matches else None


def imports_of(source: str, path: Path, modules: dict[str, Path]) -> list[Arrow]:
    """Every agentcli module `path` imports, wherever the import statement is."""
    is_package = path.name == "__init__.py"
    arrows: set[Arrow] = set()
    for node in ast.walk(tree_of(path)):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(node, source, is_package)
            # `from agentcli.x import y` may name the module agentcli.x.y
            targets = [
                f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base
                for alias in node.names
            ]
        arrows.update(
            Arrow(source, target, node.lineno)
            for target in targets
            if target == "agentcli" or target.startswith("agentcli.")
        )
    return sorted(arrows, key=lambda arrow: (arrow.line, arrow.target))


def _absolute(node: ast.ImportFrom, source: str, is_package: bool) -> str:
    if not node.level:
        return node.module or ""
    package = source.split(".")
    if not is_package:
        package = package[:-1]
    package = package[: len(package) - (node.level - 1)]
    return ".".join([*package, node.module] if node.module else package)


def all_arrows() -> list[Arrow]:
    modules = known_modules()
    return [arrow for name, path in modules.items() for arrow in imports_of(name, path, modules)]


def test_every_module_has_a_layer():
    unplaced = [name for name in known_modules() if layer_of(name) is None]
    assert unplaced == [], f"give these modules a layer in LAYERS: {unplaced}"


def test_no_import_points_up():
    names = [name for name, _ in LAYERS]
    upward = []
    for arrow in all_arrows():
        source, target = layer_of(arrow.source), layer_of(arrow.target)
        assert source is not None and target is not None
        if target < source:
            upward.append(
                f"{arrow.source}:{arrow.line} ({names[source]}) imports "
                f"{arrow.target} ({names[target]})"
            )
    assert upward == [], "arrows that point up:\n" + "\n".join(upward)


def test_only_the_app_imports_textual():
    """Textual is the app's alone: no other front end, and nothing below, pays its import."""
    found = []
    for name, path in known_modules().items():
        if name == "agentcli.frontends.tui" or name.startswith("agentcli.frontends.tui."):
            continue
        for node in ast.walk(tree_of(path)):
            if isinstance(node, ast.Import):
                modules = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level:
                modules = [node.module or ""]
            else:
                continue
            found += [f"{name}:{node.lineno}" for m in modules if m.split(".")[0] == "textual"]
    assert found == []


def test_the_walk_sees_imports_inside_functions_and_relative_ones(tmp_path):
    """The checker itself: a late import counts, and so does `from . import x`."""
    module = tmp_path / "sample.py"
    module.write_text(
        "def late():\n    from agentcli.cli.main import build_parser\n"
        "from . import loop\nfrom .. import cli\n"
    )
    modules = {"agentcli.engine.loop": module, "agentcli.cli": module, "agentcli.cli.main": module}
    arrows = imports_of("agentcli.engine.sample", module, modules)
    assert [(a.target, a.line) for a in arrows] == [
        ("agentcli.cli.main", 2),
        ("agentcli.engine.loop", 3),
        ("agentcli.cli", 4),
    ]
