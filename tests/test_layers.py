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
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

from tests.support.sources import PACKAGE, nodes_of, python_files

# Top to bottom. The modules of one layer may import each other. A module belongs to
# the layer of its longest prefix here (`agentcli.mcp.config` is settings, the rest
# of `agentcli.mcp` a service).
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    # adapters other programs import (Harbor's agent): they run the agentcli binary
    ("integrations", ("agentcli.integrations",)),
    # argv, the subcommands, start-up (`agentcli/cli/`)
    ("command line", ("agentcli.__main__", "agentcli.cli")),
    # what a person or a program drives the engine through: tui, headless, sdk, acp
    ("front ends", ("agentcli.frontends",)),
    # slash commands and custom command files; they reach an app only through the
    # CommandHost Protocol a front end hands them (commands/host.py)
    ("commands", ("agentcli.commands",)),
    ("wiring", ("agentcli.wiring",)),  # options -> settings -> the one composition root
    # what watches the engine from outside, through engine/observer.py: OpenTelemetry
    ("observers", ("agentcli.telemetry",)),
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
    # and which plugin folders a session has (their parts load with the loaders above)
    ("config", ("agentcli.config", "agentcli.mcp.config", "agentcli.plugins")),
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
    for node in nodes_of(path):
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
        for node in nodes_of(path):
            if isinstance(node, ast.Import):
                modules = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level:
                modules = [node.module or ""]
            else:
                continue
            found += [f"{name}:{node.lineno}" for m in modules if m.split(".")[0] == "textual"]
    assert found == []


def test_the_walk_sees_imports_inside_functions_under_type_checking_and_relative_ones(tmp_path):
    """The checker itself: a late import counts, one under `TYPE_CHECKING` too, and so
    does `from . import x`."""
    module = tmp_path / "sample.py"
    module.write_text(
        "def late():\n    from agentcli.cli.main import build_parser\n"
        "from . import loop\nfrom .. import cli\n"
        "if TYPE_CHECKING:\n    from agentcli.frontends.tui.app import AgentApp\n"
    )
    modules = {
        "agentcli.engine.loop": module,
        "agentcli.cli": module,
        "agentcli.cli.main": module,
        "agentcli.frontends.tui.app": module,
    }
    arrows = imports_of("agentcli.engine.sample", module, modules)
    assert [(a.target, a.line) for a in arrows] == [
        ("agentcli.cli.main", 2),
        ("agentcli.engine.loop", 3),
        ("agentcli.cli", 4),
        ("agentcli.frontends.tui.app", 6),
    ]


# -- circles ------------------------------------------------------------------------
#
# Down-pointing arrows are not enough: two modules of one layer (or two packages, the
# prefixes of LAYERS) that import each other cannot be read, tested or moved apart.
# So the import graph, every import counted as above, has no circle: between modules,
# and between packages (services are peers, but permissions -> tools -> sandbox ->
# permissions would be a circle of packages with no circle of modules in it). A
# circle is broken where it starts: the shared thing moves down, or the lower module
# declares what it needs (a Protocol) and the concrete thing is passed in from above.


@dataclass(frozen=True)
class Circle:
    """Nodes that all reach each other, and the arrows between them that close it."""

    members: tuple[str, ...]
    arrows: tuple[Arrow, ...]

    def within(self, prefix: str) -> bool:
        return all(m == prefix or m.startswith(prefix + ".") for m in self.members)

    def report(self, modules: dict[str, Path]) -> str:
        lines = [f"circle of {len(self.members)}: {', '.join(self.members)}"]
        for arrow in self.arrows:
            where = modules[arrow.source].relative_to(PACKAGE.parent)
            lines.append(f"  {where}:{arrow.line} imports {arrow.target}")
        return "\n".join(lines)


@cache
def arrows_once() -> tuple[Arrow, ...]:
    """Every arrow, the tree parsed once for all the circle checks."""
    return tuple(all_arrows())


def circles(arrows: Iterable[Arrow], node_of: Callable[[str], str]) -> list[Circle]:
    """The circles of the graph whose nodes are `node_of(module)`: each strongly
    connected set of two or more nodes, with every arrow between two of its nodes
    (each such arrow lies on a loop: its end reaches its start)."""
    edges: dict[str, list[Arrow]] = {}
    graph: dict[str, set[str]] = {}
    for arrow in arrows:
        source, target = node_of(arrow.source), node_of(arrow.target)
        if source != target:
            edges.setdefault(source, []).append(arrow)
            graph.setdefault(source, set()).add(target)
    reach = {node: _reachable(graph, node) for node in graph}
    found: dict[tuple[str, ...], Circle] = {}
    for node in sorted(graph):
        members = tuple(sorted(other for other in reach[node] if node in reach.get(other, ())))
        if len(members) < 2 or members in found:
            continue
        inside = set(members)
        closing = sorted(
            (a for m in members for a in edges.get(m, ()) if node_of(a.target) in inside),
            key=lambda a: (a.source, a.line, a.target),
        )
        found[members] = Circle(members, tuple(closing))
    return list(found.values())


def _reachable(graph: dict[str, set[str]], start: str) -> set[str]:
    """Every node a path from `start` reaches, `start` itself only through a loop."""
    seen: set[str] = set()
    todo = list(graph.get(start, ()))
    while todo:
        node = todo.pop()
        if node not in seen:
            seen.add(node)
            todo.extend(graph.get(node, ()))
    return seen


def package_of(module: str) -> str:
    """The package of LAYERS a module belongs to: its longest prefix there."""
    prefixes = [p for _name, group in LAYERS for p in group]
    matches = [p for p in prefixes if module == p or module.startswith(p + ".")]
    return max(matches, key=len) if matches else module


def test_no_import_circle():
    """Between modules, the app's helpers included (they get narrow Protocols, not
    the app: frontends/tui/host.py)."""
    found = list(circles(arrows_once(), lambda m: m))
    _fail_on("import circles", found)


@pytest.mark.parametrize("layer", [name for name, _ in LAYERS])
def test_no_package_circle(layer: str):
    """Between the packages of LAYERS: peers may use each other, but one way only."""
    (mine,) = [set(group) for name, group in LAYERS if name == layer]
    found = [c for c in circles(arrows_once(), package_of) if any(m in mine for m in c.members)]
    _fail_on("package circles", found)


def _fail_on(what: str, found: list[Circle]) -> None:
    if found:
        modules = known_modules()
        pytest.fail(f"{what}:\n" + "\n".join(c.report(modules) for c in found), pytrace=False)


def test_the_circle_check_finds_each_loop_and_its_lines():
    """The checker itself: a loop through three modules and one of two, apart; an
    arrow into a loop that does not come back is not part of it."""
    arrows = [
        Arrow("a", "b", 1),
        Arrow("b", "c", 2),
        Arrow("c", "a", 3),
        Arrow("d", "a", 4),  # into the loop, not on it
        Arrow("e", "f", 5),
        Arrow("f", "e", 6),
        Arrow("f", "f", 7),  # a module naming itself is no circle
    ]
    found = circles(arrows, lambda m: m)
    assert [(c.members, [a.line for a in c.arrows]) for c in found] == [
        (("a", "b", "c"), [1, 2, 3]),
        (("e", "f"), [5, 6]),
    ]
    by_package = circles([Arrow("p.x", "q.y", 1), Arrow("q.z", "p.w", 2)], lambda m: m[0])
    assert [(c.members, len(c.arrows)) for c in by_package] == [(("p", "q"), 2)]
