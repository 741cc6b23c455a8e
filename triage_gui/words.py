"""Counted nouns in messages, the one home for "1 ticket" against "2 tickets": the sweep saw "1 tickets"
and "labels learned from 1 taught tickets" in the command line's summary and the window's status bar."""

from __future__ import annotations


def plural(n: int, noun: str, many: str | None = None) -> str:
    """``noun`` for one, else ``many`` (default: ``noun`` + "s"); verbs too: ``plural(n, "has", "have")``."""
    return noun if n == 1 else many or f"{noun}s"


def counted(n: int, noun: str, many: str | None = None) -> str:
    """``n`` and its noun: "1 ticket", "0 tickets", "2 rows"."""
    return f"{n} {plural(n, noun, many)}"
