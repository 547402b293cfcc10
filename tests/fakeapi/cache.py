"""A toy model of prompt caching, so usage numbers react to `cache_control` like the API's.

The request is read as a sequence of blocks in the order the API caches them: tools,
then system blocks, then message content blocks. Each block boundary gets a hash of
everything up to it (a hash chain, seeded with the model). A block carrying
`cache_control` is a breakpoint: its prefix hash is written to the cache. On a later
request, a breakpoint reads the longest cached prefix ending at it or up to
`LOOKBACK` blocks before it (the real API's look-back), which is what makes "cache the
last message every turn" hit the previous turn's entry.

`cache_control` itself is left out of the hashed text, so moving a breakpoint does
not change the prefix. Token counts are a rough len(json) // 4.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

LOOKBACK = 20


@dataclass(frozen=True)
class CacheUsage:
    input_tokens: int
    cache_creation_input_tokens: int
    cache_read_input_tokens: int


@dataclass(frozen=True)
class _Segment:
    text: str
    breakpoint: bool


def estimate_tokens(value: Any) -> int:
    """About four characters of JSON per token: good enough for usage displays."""
    return len(_canonical(value)) // 4


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def _without_cache_control(block: Any) -> Any:
    if isinstance(block, dict):
        return {k: _without_cache_control(v) for k, v in block.items() if k != "cache_control"}
    if isinstance(block, list):
        return [_without_cache_control(v) for v in block]
    return block


def _has_cache_control(block: Any) -> bool:
    return isinstance(block, dict) and block.get("cache_control") is not None


def _segments(body: dict[str, Any]) -> Iterator[_Segment]:
    for tool in body.get("tools") or []:
        yield _Segment(_canonical(_without_cache_control(tool)), _has_cache_control(tool))
    system = body.get("system")
    if isinstance(system, str) and system:
        yield _Segment(_canonical({"system": system}), False)
    elif isinstance(system, list):
        for block in system:
            yield _Segment(
                _canonical({"system": _without_cache_control(block)}), _has_cache_control(block)
            )
    for message in body.get("messages") or []:
        if not isinstance(message, dict):
            continue
        role = message.get("role")
        content = message.get("content")
        if isinstance(content, str):
            yield _Segment(_canonical({"role": role, "text": content}), False)
        elif isinstance(content, list):
            for block in content:
                yield _Segment(
                    _canonical({"role": role, "block": _without_cache_control(block)}),
                    _has_cache_control(block),
                )


class PromptCache:
    """Remembers prefix hashes written at breakpoints for the life of one server."""

    def __init__(self, *, min_cacheable_tokens: int = 0) -> None:
        self.min_cacheable_tokens = min_cacheable_tokens
        self._written: set[str] = set()
        self._lock = threading.Lock()

    def clear(self) -> None:
        with self._lock:
            self._written.clear()

    def account(self, body: dict[str, Any]) -> CacheUsage:
        """Split this request's input tokens into uncached, cache-written and cache-read."""
        hashes: list[str] = []
        cumulative: list[int] = []
        breakpoints: list[int] = []
        chain = hashlib.sha256(str(body.get("model", "")).encode())
        tokens = 0
        for index, segment in enumerate(_segments(body)):
            chain = hashlib.sha256(chain.digest() + segment.text.encode())
            hashes.append(chain.hexdigest())
            tokens += len(segment.text) // 4
            cumulative.append(tokens)
            if segment.breakpoint:
                breakpoints.append(index)
        total = max(tokens, 1)
        if not breakpoints:
            return CacheUsage(total, 0, 0)

        read_at = -1
        with self._lock:
            for bp in breakpoints:
                for index in range(bp, max(bp - LOOKBACK, -1), -1):
                    if hashes[index] in self._written:
                        read_at = max(read_at, index)
                        break
            for bp in breakpoints:
                if cumulative[bp] >= self.min_cacheable_tokens:
                    self._written.add(hashes[bp])

        read = cumulative[read_at] if read_at >= 0 else 0
        last = breakpoints[-1]
        created = 0
        if last > read_at and cumulative[last] >= self.min_cacheable_tokens:
            created = cumulative[last] - read
        return CacheUsage(max(total - read - created, 0), created, read)
