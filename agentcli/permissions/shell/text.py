"""Quoting a piece of a command in a reason the person reads: short and on one line."""

from __future__ import annotations


def short(text: str, limit: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
