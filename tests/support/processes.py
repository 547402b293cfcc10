"""Waiting for a program driven in a pseudo-terminal to end by itself."""

from __future__ import annotations

from typing import Any


def wait_for_exit(child: Any) -> int | None:
    """Read `child`'s output (a pexpect spawn) to its end, wait for its process to
    exit, and return its exit status (None if a signal ended it).

    The output ends a moment before the process does (its pty closed, Python still
    finishing); pexpect's `close(force=True)` kills a process still there 0.1 s
    later, which on a loaded machine turned a clean exit into an exit status of None.
    """
    import pexpect

    child.expect(pexpect.EOF)
    return child.wait()  # type: ignore[no-any-return]
