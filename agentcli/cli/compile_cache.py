"""Source text that Python compiles at run time, compiled once and kept between runs,
as Python keeps `.pyc` files.

Three standard modules compile text every time agentcli starts:

- `dataclasses` writes each class's `__init__`, `__repr__`, `__eq__` (frozen:
  `__setattr__`...) and runs it with `exec`: ~950 methods for the ~250
  dataclasses of agentcli, Textual, pydantic and httpx;
- `typing` compiles every string annotation it meets (`ForwardRef`): ~950 more,
  since our modules' annotations are strings and pydantic resolves them;
- `collections.namedtuple` builds each tuple's `__new__` with `eval`.

That was ~110 ms of the app's 650 ms start, for the same text on every run;
after the start-up trimming of issue 24 (tools imported when used, models built
when needed) a `-p hi` still compiles ~1,060 texts, about a fifth of its CPU
time (docs/architecture.md, "Start-up").
`install()` gives each of those modules its own `exec` / `eval` / `compile`:
text found in the table runs from its stored code object, anything else is
compiled as before and added. The table is loaded from the package's own
`__pycache__` (`compiled-source.<cache tag>.marshal`) and written back at exit
when it grew.

Why it is safe to trust: the table lives where Python already loads agentcli's
compiled code from, so whoever could change it could change those `.pyc` files
too. It is keyed by the exact text and mode, and stamped like a `.pyc` with the
interpreter's bytecode version (its magic number; the cache tag is in the
name) and agentcli's version, so a table from another Python or another
release is not used. It is not written where Python would not write bytecode
(PYTHONDONTWRITEBYTECODE). An unreadable table is ignored and replaced. Only
those three modules see the replacements, and anything but plain text (code
objects, other file names, flags) goes to the builtins unchanged.

Where it is not installed: `AGENTCLI_COMPILE_CACHE=0` turns it off (to rule it
out when something looks wrong: the standard modules then run untouched), and
on a Python outside `SUPPORTED` it stays off by itself: it depends on which module
compiles what (from 3.14, string annotations are compiled in `annotationlib`,
not `typing`), so every supported version has a test that the table is really
used there (tests/test_compile_cache.py), and `requires-python` stops at the
last one.
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

from agentcli import __version__

# A table that outgrows this (upgrades leave old texts behind) is rewritten with
# only what the run used.
MAX_ENTRIES = 8000

# The Python versions whose dataclasses, typing and collections were checked to compile
# through the names replaced here (first and last minor version, inclusive); keep it
# and pyproject's requires-python in step.
SUPPORTED = ((3, 11), (3, 13))

# What a table starts with: the interpreter's bytecode stamp, then agentcli's version.
STAMP = MAGIC_NUMBER + f"agentcli {__version__}\n".encode()

# Set to "0" to run without the table.
SWITCH = "AGENTCLI_COMPILE_CACHE"

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
                file.write(STAMP + marshal.dumps(codes))
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

    Does nothing (returns None) when `AGENTCLI_COMPILE_CACHE=0`, on a Python outside
    `SUPPORTED`, or on one that cannot cache bytecode (no cache tag).
    """
    global _installed
    with _install_lock:
        if _installed is not None:
            return _installed
        if not enabled():
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


def enabled() -> bool:
    """Whether this process may use the table: not switched off, a supported Python."""
    if os.environ.get(SWITCH, "").strip() == "0":
        return False
    first, last = SUPPORTED
    return first <= sys.version_info[:2] <= last and sys.implementation.cache_tag is not None


def _read(path: str) -> dict[str, CodeType]:
    """The table in `path`, or an empty one if it is missing, unreadable or not a table."""
    try:
        with open(path, "rb") as file:  # one read: marshal.load(file) reads in small pieces
            data = file.read()
        if not data.startswith(STAMP):  # another Python's bytecode, another agentcli's texts
            return {}
        table = marshal.loads(memoryview(data)[len(STAMP) :])
    except (OSError, EOFError, ValueError, TypeError):
        return {}
    if not isinstance(table, dict):
        return {}
    return {
        key: code
        for key, code in table.items()
        if isinstance(key, str) and isinstance(code, CodeType)
    }
