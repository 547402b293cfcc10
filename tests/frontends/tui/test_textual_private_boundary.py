"""Only `agentcli/frontends/tui/textual_private.py` (and its test) may touch Textual's private API.

Textual is pinned exactly, and every private name agentcli relies on is used
through that one module, so an upgrade that changes one fails in one obvious
place. This test reads the source of agentcli/ and tests/ (with `ast`) and
names every other use:

- an import of a private module or name (`textual._compositor`,
  `from textual.keys import _character_to_key`);
- `obj._name` (or `getattr(obj, "_name")`) where `_name` is private in Textual
  and not defined in the same module;
- in a subclass of a Textual class: a method or `self._name` attribute whose
  name Textual's base classes use (an override of a private hook such as
  `_on_key`, or a clash with their private state), and any `_on_*` method
  (Textual calls those as private event handlers).

rich, the rendering library under Textual, is checked the same way.

Known limit: without types, `obj._name` on a Textual object goes unnoticed
in a module that defines a `_name` of its own (`_lines`, `_width`...).
"""

from __future__ import annotations

import ast
import importlib
import inspect
import textwrap
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from tests.support.sources import ROOT, nodes_of, parse, python_files

CHECKED = ("agentcli", "tests")
EXEMPT = {
    "agentcli/frontends/tui/textual_private.py",
    "tests/frontends/tui/test_textual_private.py",
    # The tests' finer step for Pilot's settle wait (textual._wait), which is test-only.
    "tests/support/pilot_settle.py",
}
# Code that runs inside another program's Python (Harbor's 3.12 venv), whose imports this
# venv cannot resolve: it never touches Textual (tests/test_layers.py keeps Textual in
# frontends/tui), so there is nothing here to check.
OTHER_PROGRAMS = ("agentcli/integrations/", "tests/integrations/")
LIBRARIES = ("textual", "rich")
ATTRIBUTE_FUNCTIONS = {"getattr", "setattr", "hasattr", "delattr"}


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _from_library(module: str) -> bool:
    return module.split(".")[0] in LIBRARIES


# -- names a piece of source defines ---------------------------------------------


def _defined_names(nodes: Iterable[ast.AST], *, any_attribute: bool) -> set[str]:
    """Functions, classes and assigned names among `nodes` (a whole tree's), with the
    attributes assigned on `self` (or on anything, with `any_attribute`)."""
    names: set[str] = set()
    for node in nodes:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif _is_attribute(node, ast.Store, on_self=not any_attribute):
            names.add(node.attr)
    return names


def _is_attribute(node: ast.AST, context: type, *, on_self: bool) -> bool:
    """Is `node` an attribute stored or loaded (`context`), on `self` / `cls` if `on_self`?"""
    if not (isinstance(node, ast.Attribute) and isinstance(node.ctx, context)):
        return False
    return not on_self or (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"))


def _class_members(cls: ast.ClassDef) -> Iterator[tuple[str, int]]:
    """What a class body defines, with line numbers: methods, class attributes,
    attributes set on `self`."""
    for statement in cls.body:
        if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef):
            yield statement.name, statement.lineno
            for node in ast.walk(statement):
                if _is_attribute(node, ast.Store, on_self=True):
                    yield node.attr, node.lineno
        elif isinstance(statement, ast.Assign | ast.AnnAssign):
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            for target in targets:
                if isinstance(target, ast.Name):
                    yield target.id, statement.lineno


@cache
def _library_private_names() -> frozenset[str]:
    """Every private name Textual or rich defines, in any module or class."""
    names: set[str] = set()
    for library in LIBRARIES:
        package = Path(importlib.import_module(library).__file__).parent
        for path in package.rglob("*.py"):
            tree = parse(path.read_text(encoding="utf-8"), str(path))
            names |= set(filter(_private, _defined_names(ast.walk(tree), any_attribute=True)))
    return frozenset(names)


@cache
def _library_class_private_names(cls: type) -> frozenset[str]:
    """The private names a Textual (or rich) class's own body defines."""
    try:
        tree = parse(textwrap.dedent(inspect.getsource(cls)))
    except (OSError, TypeError):  # no source (a C type, a dynamic class)
        return frozenset(filter(_private, vars(cls)))
    definition = next(node for node in tree.body if isinstance(node, ast.ClassDef))
    return frozenset(name for name, _ in _class_members(definition) if _private(name))


# -- our source -------------------------------------------------------------------


@dataclass
class _Module:
    path: str  # relative to the repository root
    name: str  # importable name
    nodes: tuple[ast.AST, ...]  # every node of its syntax tree
    findings: list[str] = field(default_factory=list)

    def find(self, line: int, what: str) -> None:
        self.findings.append(f"{self.path}:{line}: {what}")


def _our_modules() -> list[_Module]:
    modules = []
    for top in CHECKED:
        for path in python_files(ROOT / top):
            relative = path.relative_to(ROOT).as_posix()
            if relative in EXEMPT or relative.startswith(OTHER_PROGRAMS):
                continue
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            modules.append(_Module(relative, ".".join(parts), nodes_of(path)))
    return modules


def _check_imports(module: _Module) -> None:
    for node in module.nodes:
        if isinstance(node, ast.Import):
            for alias in node.names:
                if _from_library(alias.name) and any(map(_private, alias.name.split("."))):
                    module.find(node.lineno, f"imports private module {alias.name}")
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if not _from_library(node.module):
                continue
            if any(map(_private, node.module.split("."))):
                module.find(node.lineno, f"imports from private module {node.module}")
            for alias in node.names:
                if _private(alias.name):
                    module.find(node.lineno, f"imports private {node.module}.{alias.name}")


def _resolve(expression: ast.expr, namespace: dict) -> object:
    """The object a base-class expression names in a module (None if unknown)."""
    if isinstance(expression, ast.Subscript):  # App[None]
        return _resolve(expression.value, namespace)
    if isinstance(expression, ast.Name):
        return namespace.get(expression.id)
    if isinstance(expression, ast.Attribute):
        owner = _resolve(expression.value, namespace)
        return getattr(owner, expression.attr, None) if owner is not None else None
    return None


def _library_bases(cls: ast.ClassDef, module: _Module) -> set[type]:
    """The Textual / rich classes a class inherits from, directly or through ours.

    (A base defined inside a function cannot be resolved: its class is skipped.)
    """
    if not cls.bases:
        return set()
    namespace = vars(importlib.import_module(module.name))
    found: set[type] = set()
    for expression in cls.bases:
        base = _resolve(expression, namespace)
        if isinstance(base, type):
            found |= {c for c in base.__mro__ if _from_library(c.__module__)}
    return found


def _check_subclass(cls: ast.ClassDef, module: _Module) -> None:
    """Report what a Textual subclass does with private names of Textual's."""
    bases = _library_bases(cls, module)
    if not bases:
        return
    theirs = frozenset().union(*map(_library_class_private_names, bases))
    for name, line in _class_members(cls):
        if name in theirs:
            module.find(line, f"{cls.name} sets or overrides Textual's private {name}")
        elif name.startswith("_on_"):
            module.find(line, f"{cls.name}.{name}: _on_* methods are Textual's private handlers")
    methods = [s for s in cls.body if isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef)]
    for node in (node for method in methods for node in ast.walk(method)):
        if _is_attribute(node, ast.Load, on_self=True) and node.attr in theirs:
            module.find(node.lineno, f"{cls.name} uses Textual's private self.{node.attr}")


def _check_attributes(module: _Module) -> None:
    """Report `obj._name` where `_name` is Textual's, unless this module defines it.

    (On `self`, the name is the class's own, or Textual's for a Textual subclass:
    `_check_subclass` tells them apart.)
    """
    textuals = _library_private_names()
    own = _defined_names(module.nodes, any_attribute=False)
    for node in module.nodes:
        if isinstance(node, ast.Attribute):
            if _is_attribute(node, ast.expr_context, on_self=True):
                continue
            name = node.attr
        elif _is_attribute_call(node):
            name = node.args[1].value
        else:
            continue
        if name in textuals and name not in own:
            module.find(node.lineno, f"uses Textual's private {name}")


def _is_attribute_call(node: ast.AST) -> bool:
    """`getattr(obj, "_name")` and the like."""
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in ATTRIBUTE_FUNCTIONS
        and len(node.args) >= 2
        and isinstance(node.args[1], ast.Constant)
        and isinstance(node.args[1].value, str)
    )


def _check(module: _Module) -> list[str]:
    _check_imports(module)
    _check_attributes(module)
    for node in module.nodes:
        if isinstance(node, ast.ClassDef):
            _check_subclass(node, module)
    return module.findings


def test_no_module_but_textual_private_touches_textual_internals():
    modules = list(_our_modules())
    assert len(modules) > 200, f"only {len(modules)} modules found under {ROOT}: wrong root?"
    findings = [finding for module in modules for finding in _check(module)]
    assert not findings, (
        "Textual private API outside agentcli/frontends/tui/textual_private.py:\n"
        + "\n".join(findings)
    )


SAMPLE = """\
from textual._compositor import Compositor
from textual.keys import _character_to_key
from textual.widgets import Markdown, TextArea


class Prompt(TextArea):
    async def _on_key(self, event):
        self._own = True

    def _on_something(self):
        return self._own


class Body(Markdown):
    def blocks(self, tokens):
        return list(self._parse_markdown(tokens))


def same(old, new):
    return old._content == getattr(new, "_content")
"""


def test_the_check_finds_each_kind_of_private_use(tmp_path, monkeypatch):
    (tmp_path / "sample_private_use.py").write_text(SAMPLE)
    monkeypatch.syspath_prepend(str(tmp_path))
    module = _Module("sample.py", "sample_private_use", tuple(ast.walk(ast.parse(SAMPLE))))
    assert _check(module) == [
        "sample.py:1: imports from private module textual._compositor",
        "sample.py:2: imports private textual.keys._character_to_key",
        "sample.py:20: uses Textual's private _content",
        "sample.py:20: uses Textual's private _content",
        "sample.py:7: Prompt sets or overrides Textual's private _on_key",
        "sample.py:10: Prompt._on_something: _on_* methods are Textual's private handlers",
        "sample.py:16: Body uses Textual's private self._parse_markdown",
    ]
