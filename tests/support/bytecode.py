"""The test run keeps compiled bytecode (`.pyc`), whatever PYTHONDONTWRITEBYTECODE says.

A machine that sets PYTHONDONTWRITEBYTECODE (many container images do, this one and
CI among them) has every Python process compile from source each module it imports
that has no `.pyc` yet, and in a clean clone none of agentcli's or the tests' has one.
The suite starts hundreds of processes (the agentcli binary, MCP servers, the fake API),
each compiling the same few hundred modules again, and pytest rewrites every test module
again in each worker: in a clean clone tests/integration alone took a third more CPU.
So the test processes, and through their environment every process they start, write
bytecode to `__pycache__` (ignored by git) and read it back, as on a person's machine.
"""

from __future__ import annotations

import os
import sys

VARIABLE = "PYTHONDONTWRITEBYTECODE"


def keep_bytecode() -> None:
    """Write `.pyc` files from now on, here and in every process started from here."""
    os.environ.pop(VARIABLE, None)
    sys.dont_write_bytecode = False
