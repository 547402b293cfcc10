"""The table of text Python compiles at run time (agentcli/cli/compile_cache.py): dataclasses,
namedtuples and string annotations made with it behave exactly as without it, it
survives a restart, and a bad table is ignored, never trusted half-way."""

from __future__ import annotations

import collections
import dataclasses
import inspect
import json
import marshal
import os
import shutil
import subprocess
import sys
import tomllib
import typing
from importlib.util import MAGIC_NUMBER
from pathlib import Path
from typing import Any

import pytest

import agentcli
from agentcli.cli import compile_cache
from agentcli.cli.compile_cache import STAMP, SUPPORTED, SWITCH, CompileCache
from tests.ci_required import require


def make_classes() -> dict[str, Any]:
    """A spread of dataclass features, defined fresh on each call."""

    @dataclasses.dataclass(order=True)
    class Point:
        x: int
        y: int = 0
        tags: list[str] = dataclasses.field(default_factory=list)

    @dataclasses.dataclass(frozen=True, slots=True)
    class Frozen:
        name: str
        size: float = 1.5

    @dataclasses.dataclass(kw_only=True)
    class KwOnly:
        first: str
        second: int = dataclasses.field(default=2, repr=False)

        def __post_init__(self) -> None:
            self.first = self.first.upper()

    class Hinted:  # string annotations, resolved through typing.ForwardRef
        first: list[int] | None
        second: Point

    pair = collections.namedtuple("pair", ["left", "right"], defaults=[0])
    return {"Point": Point, "Frozen": Frozen, "KwOnly": KwOnly, "Hinted": Hinted, "Pair": pair}


def behaviour(classes: dict[str, Any]) -> list[Any]:
    """What a program can observe of the classes' generated methods."""
    point, frozen, kw = classes["Point"], classes["Frozen"], classes["KwOnly"]
    a, b = point(1, 2), point(1, 3, ["t"])
    observed: list[Any] = [repr(a), repr(b), a == point(1, 2), a < b, a.tags is not b.tags]
    f = frozen("n")
    observed += [repr(f), hash(f) == hash(frozen("n")), f == frozen("n", 1.5)]
    try:
        f.name = "changed"
        observed.append("assigned")
    except dataclasses.FrozenInstanceError as error:
        observed.append(f"frozen: {error}")
    k = kw(first="low")
    observed += [repr(k), k.first, k.second]
    try:
        kw("positional")
        observed.append("accepted")
    except TypeError as error:
        observed.append(f"type error: {error}")
    hints = typing.get_type_hints(classes["Hinted"], localns={"Point": point})
    observed.append({name: str(hint) for name, hint in hints.items()})
    try:
        typing.ForwardRef("not an expression(")
        observed.append("compiled")
    except SyntaxError as error:
        observed.append(f"syntax error: {error}")
    pair = classes["Pair"]
    observed += [repr(pair(1)), pair(right=2, left=3), list(pair(1, 2)), pair(5).right]
    for name in ("Point", "Frozen", "KwOnly"):  # real annotations, not a future import's strings
        cls = classes[name]
        observed.append(
            {n: str(p.annotation) for n, p in inspect.signature(cls).parameters.items()}
        )
    return observed


@pytest.fixture
def with_table(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Any:
    """Make and use classes through a table stored at a path, as `install()` would (where
    bytecode may be written: this machine's environment may say otherwise)."""
    monkeypatch.setattr(sys, "dont_write_bytecode", False)

    def make(path: Path) -> tuple[CompileCache, list[Any]]:
        """The table, and what a program observes of classes made and used through it."""
        table = CompileCache(str(path))
        with monkeypatch.context() as patched:
            patched.setattr(dataclasses, "exec", table.exec, raising=False)
            patched.setattr(collections, "eval", table.eval, raising=False)
            patched.setattr(typing, "compile", table.compile, raising=False)
            observed = behaviour(make_classes())
        return table, observed

    return make


def test_classes_behave_the_same_with_a_fresh_table_and_a_stored_one(
    with_table: Any, tmp_path: Path
) -> None:
    expected = behaviour(make_classes())
    path = tmp_path / "methods.marshal"

    table, observed = with_table(path)
    assert table.added > 0  # compiled here, for the first time
    assert observed == expected
    table.save()
    assert path.is_file()

    again, observed = with_table(path)
    assert again.added == 0  # every method came from the stored table
    assert {key.split("\0")[0] for key in again.used} == {"exec", "eval"}
    assert observed == expected


def test_an_unreadable_table_is_ignored_and_replaced(with_table: Any, tmp_path: Path) -> None:
    path = tmp_path / "methods.marshal"
    expected = behaviour(make_classes())
    table_of_another_python = b"\x00\x00\r\n" + marshal.dumps(
        {"exec\0x = 1": compile("x = 1", "<string>", "exec")}
    )
    table_of_another_agentcli = (
        MAGIC_NUMBER
        + b"agentcli 0.0.1\n"
        + marshal.dumps({"exec\0x = 1": compile("x = 1", "<string>", "exec")})
    )
    for garbage in (
        b"",
        b"\x00not marshal at all",
        STAMP + b"\x00not marshal at all",
        STAMP + marshal.dumps(["a", "list"]),
        table_of_another_python,
        table_of_another_agentcli,
    ):
        path.write_bytes(garbage)
        table, observed = with_table(path)
        assert table.added > 0
        assert observed == expected
        table.save()
        assert CompileCache(str(path)).codes  # a valid table now


def test_entries_that_are_not_text_and_code_are_dropped(tmp_path: Path) -> None:
    path = tmp_path / "methods.marshal"
    good = compile("x = 1", "<string>", "exec")
    path.write_bytes(
        STAMP + marshal.dumps({"exec\0x = 1": good, "exec\0y = 2": "not code", 3: good})
    )
    assert list(CompileCache(str(path)).codes) == ["exec\0x = 1"]


def test_nothing_is_written_where_python_would_not_write_bytecode(
    with_table: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "methods.marshal"
    table, _ = with_table(path)
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    table.save()
    assert not path.exists()


def test_an_install_where_nothing_can_be_written_runs_without_a_table(
    with_table: Any, tmp_path: Path
) -> None:
    blocked = tmp_path / "site"
    blocked.write_text("a file where the package folder would be")  # fails as root too
    table, observed = with_table(blocked / "__pycache__" / "methods.marshal")
    assert observed == behaviour(make_classes())
    table.save()  # no error, and nothing left behind
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site"]
    assert blocked.read_text() == "a file where the package folder would be"


def test_an_overgrown_table_keeps_only_what_the_run_used(
    with_table: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "methods.marshal"
    stale = {f"exec\0x = {n}": compile(f"x = {n}", "<string>", "exec") for n in range(50)}
    path.write_bytes(STAMP + marshal.dumps(stale))
    assert len(CompileCache(str(path)).codes) == 50  # read as a table of this agentcli
    monkeypatch.setattr(compile_cache, "MAX_ENTRIES", 40)  # this run alone adds more than 10
    table, _ = with_table(path)
    table.save()
    kept = CompileCache(str(path)).codes
    assert kept and not set(kept) & set(stale)
    assert set(kept) == table.used


def test_exec_given_code_or_no_namespace_acts_like_the_builtin(tmp_path: Path) -> None:
    table = CompileCache(str(tmp_path / "methods.marshal"))
    namespace: dict[str, Any] = {}
    table.exec(compile("value = 41 + 1", "<string>", "exec"), namespace)
    assert namespace["value"] == 42
    assert table.added == 0  # code objects are run as given, not stored


def test_a_second_agentcli_process_compiles_nothing(tmp_path: Path) -> None:
    """The real round trip: a process that installs the table and imports the engine's
    events, then another one doing the same, which finds every method stored."""
    path = tmp_path / "methods.marshal"
    script = (
        "import sys\n"
        "from agentcli.cli.compile_cache import install\n"
        f"table = install({str(path)!r})\n"
        "import agentcli.engine.events, agentcli.engine.query_engine\n"
        "print(table.added, len(table.used))\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    runs = []
    for _ in range(2):
        done = subprocess.run(
            [sys.executable, "-c", script], capture_output=True, text=True, check=True, env=env
        )
        added, used = map(int, done.stdout.split())
        runs.append((added, used))
    (first_added, first_used), (second_added, second_used) = runs
    assert first_added > 50
    assert second_added == 0
    assert second_used == first_used


# -- where the table is used: every supported Python, nowhere else ----------------------

ROOT = Path(__file__).resolve().parents[1]

# Run by each interpreter with only the repository on its path (the module needs nothing
# but the standard library): a dataclass, a namedtuple and a string annotation, made
# through the installed table; prints whether it was installed and which texts it served.
USE_THE_TABLE = """
import collections, dataclasses, json, sys, typing
sys.path.insert(0, sys.argv[1])
from agentcli.cli.compile_cache import install
table = install(sys.argv[2])

@dataclasses.dataclass
class Probe:
    first_probe_field: int

class Hinted:
    probe_hint: "list[int] | None"

typing.get_type_hints(Hinted)
collections.namedtuple("ProbePair", ["left_probe", "right_probe"])
print(json.dumps(None if table is None else {"added": table.added, "used": sorted(table.used)}))
"""


def python_named(version: str) -> str | None:
    """An interpreter of `version` ("3.12") on this machine: this one, one on PATH, or
    one pyenv installed."""
    if f"{sys.version_info.major}.{sys.version_info.minor}" == version:
        return sys.executable
    pyenv = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "versions"
    for candidate in sorted(pyenv.glob(f"{version}.*/bin/python{version}"), reverse=True):
        return str(candidate)
    found = shutil.which(f"python{version}")
    if found and "shims" not in found:
        return found
    return None


def use_the_table(python: str, path: Path, **env_changes: str) -> Any:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", SWITCH)}
    env.update(env_changes)
    done = subprocess.run(
        [python, "-c", USE_THE_TABLE, str(ROOT), str(path)],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout)


def supported_versions() -> list[str]:
    (major, first), (_, last) = SUPPORTED
    return [f"{major}.{minor}" for minor in range(first, last + 1)]


def test_the_supported_range_is_the_one_the_package_declares():
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    (major, first), (_, last) = SUPPORTED
    assert declared["requires-python"] == f">={major}.{first},<{major}.{last + 1}"
    assert declared["version"] == agentcli.__version__  # the version the table is keyed by


@pytest.mark.parametrize("version", supported_versions())
def test_on_every_supported_python_the_table_is_really_used(version: str, tmp_path: Path):
    """A second process finds each kind of text in the table: dataclass methods
    (dataclasses' exec), a string annotation (typing's compile), a namedtuple
    (collections' eval). A Python that compiles them elsewhere fails here."""
    python = python_named(version)
    require(
        None if python else f"no python{version} on PATH or in pyenv",
        f"the compile cache's test on Python {version}",
        f"no Python {version}",
    )
    assert python is not None
    path = tmp_path / "table.marshal"

    first = use_the_table(python, path)
    second = use_the_table(python, path)

    assert first is not None and first["added"] > 0
    assert path.read_bytes().startswith(_stamp_of(python))
    assert second["added"] == 0, "the second run compiled again: the table was not used"
    used = "\n".join(second["used"])
    assert "first_probe_field" in used  # Probe's __init__
    assert "list[int] | None" in used  # the annotation
    assert "left_probe" in used  # the namedtuple's __new__


def test_outside_the_supported_range_nothing_is_patched(tmp_path: Path):
    (_, first), (_, last) = SUPPORTED
    outside = [f"3.{first - 1}", f"3.{last + 1}"]
    pythons = [python for python in map(python_named, outside) if python is not None]
    require(
        None if pythons else f"no python{' or python'.join(outside)} on PATH or in pyenv",
        "the compile cache's test outside its range",
        f"no Python {' or '.join(outside)}",
    )
    for python in pythons:
        assert use_the_table(python, tmp_path / "table.marshal") is None
    assert not (tmp_path / "table.marshal").exists()


def test_the_switch_turns_it_off(tmp_path: Path):
    path = tmp_path / "table.marshal"
    assert use_the_table(sys.executable, path, **{SWITCH: "0"}) is None
    assert not path.exists()
    assert use_the_table(sys.executable, path, **{SWITCH: "1"}) is not None  # only "0" is off


def _stamp_of(python: str) -> bytes:
    """The stamp a table written by `python` starts with (its magic number, our version)."""
    done = subprocess.run(
        [
            python,
            "-c",
            "import importlib.util, sys; sys.stdout.buffer.write(importlib.util.MAGIC_NUMBER)",
        ],
        capture_output=True,
        check=True,
    )
    return done.stdout + f"agentcli {agentcli.__version__}\n".encode()
