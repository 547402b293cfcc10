"""Source text that Python compiles at run time, compiled once and kept between runs,
as Python keeps `.pyc` files.

Three standard modules compile text every time agentcli starts:

- `dataclasses` writes each class's `__init__`, `__repr__`, `__eq__` (frozen:
  `__setattr__`...) and runs it with `exec`: ~950 methods for the ~250
  dataclasses of agentcli, Textual, pydantic and httpx;
- `typing` compiles every string annotation it meets (`ForwardRef`): ~950 more,
  since our modules' annotations are strings and pydantic resolves them;
- `collections.namedtuple` builds each tuple's `__new__` with `eval`.

That was ~110 ms of the app's 650 ms start, for the same text on every run.
`install()` gives each of those modules its own `exec` / `eval` / `compile`:
text found in the table runs from its stored code object, anything else is
compiled as before and added. The table is loaded from the package's own
`__pycache__` (`compiled-source.<cache tag>.marshal`) and written back at exit
when it grew.

Why it is safe to trust: the table lives where Python already loads agentcli's
compiled code from, so whoever could change it could change those `.pyc` files
too. It is keyed by the exact text and mode, and stamped like a `.pyc` with the
interpreter's bytecode version (its magic number; the cache tag is in the
name), so a table from another Python is not used. It is not written where
Python would not write bytecode (PYTHONDONTWRITEBYTECODE). An unreadable table
is ignored and replaced. Only those three modules see the replacements, and
anything but plain text (code objects, other file names, flags) goes to the
builtins unchanged.
"""

import atexit
import builtins
import marshal
import os
import sys
import threading
from importlib.util import MAGIC_NUMBER
from types import CodeType
from typing import Any

# A table that outgrows this (upgrades leave old texts behind) is rewritten with
# only what the run used.
MAX_ENTRIES = 8000

_install_lock = threading.Lock()
_installed: "CompileCache | None" = None


class CompileCache:
    """(mode, source text) -> compiled code, loaded from and saved to one file."""

    def __init__(self, path: str | None) -> None:
        self.path = path
        self._codes: dict[str, CodeType] | None = None
        self._reading = threading.Lock()
        self.used: set[str] = set()
        self.added = 0

    @property
    def codes(self) -> dict[str, CodeType]:
        """The table, read when first needed (`--version` and `--help` never need it),
        once even when two threads make their first classes at the same time."""
        if self._codes is None:
            with self._reading:
                if self._codes is None:
                    self._codes = _read(self.path) if self.path else {}
        return self._codes

    # -- the replacements the modules get ----------------------------------------------

    def exec(self, source: Any, globals: Any = None, locals: Any = None, /) -> None:
        """`exec` for dataclasses."""
        if globals is None:  # the builtin would use its caller's namespace
            frame = sys._getframe(1)
            globals, locals = frame.f_globals, frame.f_locals if locals is None else locals
        if isinstance(source, str):
            source = self.code_for(source, "exec")
        builtins.exec(source, globals, locals)

    def eval(self, source: Any, globals: Any = None, locals: Any = None, /) -> Any:
        """`eval` for collections (namedtuple)."""
        if globals is None:
            frame = sys._getframe(1)
            globals, locals = frame.f_globals, frame.f_locals if locals is None else locals
        if isinstance(source, str):
            source = self.code_for(source, "eval")
        return builtins.eval(source, globals, locals)

    def compile(
        self,
        source: Any,
        filename: Any,
        mode: str,
        flags: int = 0,
        dont_inherit: bool = False,
        optimize: int = -1,
    ) -> Any:
        """`compile` for typing (ForwardRef)."""
        if isinstance(source, str) and filename == "<string>" and flags == 0 and optimize == -1:
            return self.code_for(source, mode)
        return builtins.compile(source, filename, mode, flags, dont_inherit, optimize)

    # -- the table ---------------------------------------------------------------------

    def code_for(self, text: str, mode: str) -> CodeType:
        key = f"{mode}\0{text}"
        code = self.codes.get(key)
        if code is None:
            # dont_inherit: compiled as the calling module compiles it (none of the three
            # has future imports), not with this module's flags.
            code = builtins.compile(text, "<string>", mode, dont_inherit=True)
            self.codes[key] = code
            self.added += 1
        self.used.add(key)
        return code

    def save(self) -> None:
        """Write the table back if this run compiled something new (atomically: a
        concurrent agentcli reads the old table or the new one, never half)."""
        if not self.added or self.path is None or sys.dont_write_bytecode:
            return
        codes = self.codes
        if len(codes) > MAX_ENTRIES:
            codes = {key: code for key, code in codes.items() if key in self.used}
        temporary = f"{self.path}.{os.getpid()}.tmp"
        try:
            os.makedirs(os.path.dirname(self.path), exist_ok=True)
            with open(temporary, "wb") as file:
                file.write(MAGIC_NUMBER + marshal.dumps(codes))
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
    return os.path.join(package, "__pycache__", f"compiled-source.{tag}.marshal")


def install(path: str | None = None) -> CompileCache | None:
    """Give dataclasses, typing and collections the table, once per process; returns it.

    Does nothing on an interpreter that cannot cache bytecode (no cache tag).
    """
    global _installed
    with _install_lock:
        if _installed is not None:
            return _installed
        if sys.implementation.cache_tag is None:
            return None
        import collections
        import dataclasses
        import typing

        cache = CompileCache(path or table_path())
        dataclasses.exec = cache.exec  # type: ignore[attr-defined]
        collections.eval = cache.eval  # type: ignore[attr-defined]
        typing.compile = cache.compile  # type: ignore[attr-defined]
        atexit.register(cache.save)
        _installed = cache
        return cache


def _read(path: str) -> dict[str, CodeType]:
    """The table in `path`, or an empty one if it is missing, unreadable or not a table."""
    try:
        with open(path, "rb") as file:  # one read: marshal.load(file) reads in small pieces
            data = file.read()
        if not data.startswith(MAGIC_NUMBER):  # another Python's bytecode
            return {}
        table = marshal.loads(memoryview(data)[len(MAGIC_NUMBER) :])
    except (OSError, EOFError, ValueError, TypeError):
        return {}
    if not isinstance(table, dict):
        return {}
    return {
        key: code
        for key, code in table.items()
        if isinstance(key, str) and isinstance(code, CodeType)
    }
