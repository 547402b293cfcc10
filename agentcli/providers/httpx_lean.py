"""httpx, imported without the command-line tool its package loads on the way.

`import httpx` also imports `httpx._main`, the `httpx` command (click, rich,
pygments): 40% of the import's time, for a tool agentcli never runs. Its
package falls back to a stub when that import fails (`except ImportError` in
`httpx/__init__.py`, for installs without the CLI's extras); a `None` in
`sys.modules` makes it fail, and is taken out again once httpx is loaded, so
nothing else is changed. Import httpx from here where start-up time counts;
tests/providers/test_httpx_lean.py checks this use of httpx's insides.
"""

from __future__ import annotations

import sys

_CLI = "httpx._main"

if "httpx" not in sys.modules and _CLI not in sys.modules:
    # typeshed types sys.modules as modules only; None is the documented import blocker.
    sys.modules[_CLI] = None  # type: ignore[assignment]
    try:
        import httpx
    finally:
        del sys.modules[_CLI]
else:
    import httpx

__all__ = ["httpx"]
