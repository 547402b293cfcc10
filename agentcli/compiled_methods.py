"""Dataclass methods compiled once and kept between runs, as Python keeps `.pyc` files.

When a dataclass is created, `dataclasses` writes the source text of its
`__init__`, `__repr__`, `__eq__` (and, frozen, `__setattr__`...) and compiles it
with `exec`. agentcli and the libraries it starts with (Textual, pydantic,
httpx) create about 250 dataclasses before the first prompt can be sent, and
compiling their ~950 methods took about 90 ms of the app's 650 ms start. The
text is the same from one run to the next, so the compiled code can be too.

`install()` gives the `dataclasses` module its own `exec`: source text found in
the table is run from its stored code object, anything else is compiled as
before and added. The table is loaded from the package's own `__pycache__`
(`dataclass-methods.<cache tag>.marshal`) and written back at exit when it grew.

Why this is safe to trust: the table lives where Python already loads compiled
code for agentcli from, so whoever could change it could change those `.pyc`
files too. It is keyed by the exact source text and written only for this
interpreter's bytecode (the cache tag), and not at all where Python would not
write bytecode (PYTHONDONTWRITEBYTECODE). An unreadable or foreign table is
ignored and replaced. Only the `dataclasses` module sees the replacement; an
`exec` given anything but a string behaves exactly like the builtin.
"""

import atexit
import builtins
import marshal
import os
import sys
import threading
from types import CodeType
from typing import Any

# A table that outgrows this (upgrades leave old texts behind) is rewritten with
# only what the run used.
MAX_ENTRIES = 4000

_install_lock = threading.Lock()
_installed: "MethodTable | None" = None


class MethodTable:
    """Source text -> compiled code, loaded from and saved to one file."""

    def __init__(self, path: str | None) -> None:
        self.path = path
        self.codes: dict[str, CodeType] = _read(path) if path else {}
        self.used: set[str] = set()
        self.added = 0

    def exec(self, source: Any, globals: Any = None, locals: Any = None, /) -> None:
        """`exec` for the dataclasses module: compiled text comes from the table."""
        if globals is None:  # the builtin would use its caller's namespace
            globals = sys._getframe(1).f_globals
            if locals is None:
                locals = sys._getframe(1).f_locals
        if isinstance(source, str):
            source = self.code_for(source)
        builtins.exec(source, globals, locals)

    def code_for(self, text: str) -> CodeType:
        code = self.codes.get(text)
        if code is None:
            # dont_inherit: compiled as the dataclasses module would compile it, not
            # with this module's future flags.
            code = compile(text, "<string>", "exec", dont_inherit=True)
            self.codes[text] = code
            self.added += 1
        self.used.add(text)
        return code

    def save(self) -> None:
        """Write the table back if this run compiled something new (atomically: a
        concurrent agentcli reads the old table or the new one, never half)."""
        if not self.added or self.path is None or sys.dont_write_bytecode:
            return
        codes = self.codes
        if len(codes) > MAX_ENTRIES:
            codes = {text: code for text, code in codes.items() if text in self.used}
        temporary = f"{self.path}.{os.getpid()}.tmp"
        try:
            os.makedirs(os.path.dirname(self.path), exist_ok=True)
            with open(temporary, "wb") as file:
                file.write(marshal.dumps(codes))
            os.replace(temporary, self.path)
        except OSError:  # a read-only install: run without the table, as without .pyc files
            try:
                os.unlink(temporary)
            except OSError:
                pass
        self.added = 0


def table_path() -> str:
    """Where the table lives: beside agentcli's own compiled modules."""
    package = os.path.dirname(os.path.abspath(__file__))
    tag = sys.implementation.cache_tag or "unknown"
    return os.path.join(package, "__pycache__", f"dataclass-methods.{tag}.marshal")


def install(path: str | None = None) -> MethodTable | None:
    """Give `dataclasses` the table's `exec`, once per process; returns the table.

    Does nothing on an interpreter that cannot cache bytecode (no cache tag).
    """
    global _installed
    with _install_lock:
        if _installed is not None:
            return _installed
        if sys.implementation.cache_tag is None:
            return None
        import dataclasses

        table = MethodTable(path or table_path())
        dataclasses.exec = table.exec  # type: ignore[attr-defined]
        atexit.register(table.save)
        _installed = table
        return table


def _read(path: str) -> dict[str, CodeType]:
    """The table in `path`, or an empty one if it is missing, unreadable or not a table."""
    try:
        with open(path, "rb") as file:  # one read: marshal.load(file) reads in small pieces
            table = marshal.loads(file.read())
    except (OSError, EOFError, ValueError, TypeError):
        return {}
    if not isinstance(table, dict):
        return {}
    return {
        text: code
        for text, code in table.items()
        if isinstance(text, str) and isinstance(code, CodeType)
    }
