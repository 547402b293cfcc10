"""Pages fetched in the last fifteen minutes, so asking twice about one page
costs one download.

Keyed by the URL the model asked for (after the `http` upgrade). Only pages
are kept, never a model's answer about one: the next call may ask another
question. Bounded in entries, the oldest dropped first; kept in memory only,
for the session that fetched them.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

TTL_S = 15 * 60
MAX_ENTRIES = 64


@dataclass(frozen=True, slots=True)
class CachedPage:
    """What a call needs of a page it fetched: where it ended up, and its text."""

    url: str
    status: int
    content_type: str
    size: int  # bytes received
    text: str


class PageCache:
    def __init__(
        self,
        ttl_s: float = TTL_S,
        max_entries: int = MAX_ENTRIES,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._ttl_s = ttl_s
        self._max = max_entries
        self._clock = clock
        self._pages: OrderedDict[str, tuple[float, CachedPage]] = OrderedDict()

    def get(self, url: str) -> CachedPage | None:
        found = self._pages.get(url)
        if found is None:
            return None
        stored_at, page = found
        if self._clock() - stored_at >= self._ttl_s:
            del self._pages[url]
            return None
        return page

    def put(self, url: str, page: CachedPage) -> None:
        self._pages.pop(url, None)
        self._pages[url] = (self._clock(), page)
        while len(self._pages) > self._max:
            self._pages.popitem(last=False)
