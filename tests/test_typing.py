"""The type checker guards what the seams promise.

`make lint` runs mypy strictly over all of agentcli. These tests keep two of its
promises from eroding quietly: the configuration stays strict for every module (no
override loosens one), and the front ends' event dispatchers stay exhaustive, so an
event kind added to `agentcli.engine.events.Event` fails type checking in each
dispatcher that does not handle it yet instead of being dropped at run time.
"""

from __future__ import annotations

import ast
import dataclasses
import re
import tomllib
from pathlib import Path
from typing import get_args

from mypy import api as mypy_api

import agentcli
from agentcli.engine import events

ROOT = Path(agentcli.__file__).parent.parent
EVENTS = ROOT / "agentcli/engine/events.py"

# Each front end's one `match event:` over every kind: (module, class, method).
DISPATCHERS = (
    ("agentcli/frontends/tui/events_view.py", "EventsView", "show"),
    ("agentcli/frontends/headless/output.py", "Output", "event"),
    ("agentcli/frontends/acp/updates.py", "UpdateMapper", "updates"),
)

# What pyproject's mypy tables may hold: strictness for the package, and third-party
# modules without type information let in (nothing of agentcli's loosened).
TOP_KEYS = {"python_version", "packages", "strict", "overrides"}
OVERRIDE_KEYS = {"module", "ignore_missing_imports"}


def test_mypy_is_strict_for_the_whole_package_with_no_module_loosened() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mypy"]
    assert config["strict"] is True
    assert config["packages"] == ["agentcli"]
    assert set(config) <= TOP_KEYS, f"not only strictness: {set(config) - TOP_KEYS}"
    for override in config.get("overrides", []):
        assert set(override) <= OVERRIDE_KEYS, override
        modules = override["module"]
        modules = [modules] if isinstance(modules, str) else modules
        assert not [m for m in modules if m.split(".")[0] == "agentcli"], override


def test_no_module_loosens_the_checker_from_inside() -> None:
    """A `# mypy:` comment or a file-wide `# type: ignore` would undo the config."""
    loosened = []
    for path in (ROOT / "agentcli").rglob("*.py"):
        lines = path.read_text().splitlines()
        if any(line.lstrip().startswith("# mypy:") for line in lines):
            loosened.append(f"{path}: # mypy: comment")
        for line in lines:  # the comments before the first statement
            if line.strip() and not line.lstrip().startswith("#"):
                break
            if re.match(r"\s*#\s*type:\s*ignore", line):
                loosened.append(f"{path}: file-wide type: ignore")
    assert loosened == []


def test_every_event_kind_is_a_member_of_the_event_union() -> None:
    """A kind defined but left out of `Event` would escape the dispatchers' check."""
    kinds = {
        value
        for value in vars(events).values()
        if isinstance(value, type)
        and dataclasses.is_dataclass(value)
        and value.__module__ == events.__name__
    }
    assert kinds == set(get_args(events.Event))


def _with_new_kind(source: str) -> str:
    """events.py with one more kind in the `Event` union, handled by no one."""
    start, end = "\nEvent = (\n", "    | SubagentEvent\n)"
    assert source.count(start) == 1 and source.count(end) == 1, "Event's shape changed"
    new_kind = (
        "\n@dataclass(frozen=True, slots=True)\n"
        "class NewKind:\n"
        '    """A kind no dispatcher knows yet."""\n\n'
    )
    source = source.replace(start, f"\n{new_kind}{start}")
    return source.replace(end, "    | SubagentEvent\n    | NewKind\n)")


def _lines_of(path: str, class_name: str, method: str) -> range:
    tree = ast.parse((ROOT / path).read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and node.name == class_name:
            for item in node.body:
                if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef) and (
                    item.name == method
                ):
                    assert item.end_lineno is not None
                    return range(item.lineno, item.end_lineno + 1)
    raise AssertionError(f"{path} has no {class_name}.{method}")


def test_a_new_event_kind_fails_type_checking_in_every_dispatcher(tmp_path: Path) -> None:
    """mypy over events.py (with a kind added) and the dispatchers. Imports of other
    modules are skipped: which kinds a `match` covers depends only on these files, and
    skipping keeps the run to seconds (the other errors that makes are not looked at)."""
    shadow = tmp_path / "events.py"
    shadow.write_text(_with_new_kind(EVENTS.read_text()))
    paths = [path for path, _, _ in DISPATCHERS]
    report, _, _ = mypy_api.run(
        [
            "--config-file",
            str(ROOT / "pyproject.toml"),
            "--cache-dir",
            str(tmp_path / "cache"),
            "--follow-imports",
            "skip",
            "--no-error-summary",
            "--shadow-file",
            str(EVENTS),
            str(shadow),
            str(EVENTS),
            *(str(ROOT / path) for path in paths),
        ]
    )
    unhandled: dict[str, list[int]] = {}
    for line in report.splitlines():
        found = re.match(r"(.+?):(\d+): error: (.*)", line)
        if found and "assert_never" in found[3] and '"NewKind"' in found[3]:
            where = Path(found[1]).resolve().relative_to(ROOT).as_posix()
            unhandled.setdefault(where, []).append(int(found[2]))
    for path, class_name, method in DISPATCHERS:
        lines = unhandled.get(path, [])
        assert any(line in _lines_of(path, class_name, method) for line in lines), (
            f"{class_name}.{method} ({path}) accepts an event kind it does not handle:\n" + report
        )
