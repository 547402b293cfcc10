"""Cyclic garbage collection held off while a resume builds what lives on.

A resumed session's parse and its entries are hundreds of thousands of new objects
that all stay. Each collection that runs while they are being made walks them, and
holds the interpreter (the app's loop with it: a key waits) for milliseconds to tens
of milliseconds; once they are made, they are frozen out of later collections. Both
steps happen in worker threads; the pause is process-wide, and brief.

A freeze keeps whatever is alive then, garbage cycles too, out of every later
collection: it is used on the resume at start-up only (startup.py, and
history_view.py `prepare_rest`, which only that resume calls), when no earlier
conversation's widgets are waiting to be collected; `/resume` inside the app
does not freeze.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collection_paused(*, freeze: bool = False) -> Iterator[None]:
    """No cyclic collection inside; garbage made meanwhile is collected after.
    `freeze`: what exists at the end is frozen out of later collections, before
    collection is on again (a collection set off in between, by any thread's
    allocation, would walk all of it)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
        if freeze:
            gc.freeze()
    finally:
        if was:
            gc.enable()
