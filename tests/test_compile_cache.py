"""The table of text Python compiles at run time (agentcli/cli/compile_cache.py): dataclasses,
namedtuples and string annotations made with it behave exactly as without it, it
survives a restart, and a bad table is ignored, never trusted half-way."""

from __future__ import annotations

import collections
import dataclasses
import inspect
import marshal
import os
import subprocess
import sys
import typing
from importlib.util import MAGIC_NUMBER
from pathlib import Path
from typing import Any

import pytest

from agentcli.cli import compile_cache
from agentcli.cli.compile_cache import CompileCache


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
    for garbage in (
        b"",
        b"\x00not marshal at all",
        MAGIC_NUMBER + b"\x00not marshal at all",
        MAGIC_NUMBER + marshal.dumps(["a", "list"]),
        table_of_another_python,
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
        MAGIC_NUMBER + marshal.dumps({"exec\0x = 1": good, "exec\0y = 2": "not code", 3: good})
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
    path.write_bytes(MAGIC_NUMBER + marshal.dumps(stale))
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
