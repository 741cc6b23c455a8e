"""Progress on the terminal for the command line's long jobs (one process or a cluster)."""

from __future__ import annotations

import sys
import time

from ..words import plural

# Whether a progress line is open (no newline yet): an interrupt or an error ends it first, so its
# message gets a line of its own rather than "…embedded (first pass)ticket-triage: interrupted".
_open = [False]


def progress_line(done: int, total: int, started: float, extra: str = "") -> None:
    """``\\r{done}/{total} tickets, {rate}/s`` on stderr, rewritten in place."""
    rate = done / max(1e-9, time.perf_counter() - started)
    print(f"\r{done}/{total} {plural(total, 'ticket')}, {rate:.1f}/s{extra}", end="", file=sys.stderr, flush=True)
    _open[0] = True


def status_line(text: str) -> None:
    """A progress line of words (``\r12,288 rows read…``) on stderr, rewritten in place."""
    print(f"\r{text}", end="", file=sys.stderr, flush=True)
    _open[0] = True


def end_line() -> None:
    """End an open progress line (nothing where none is open)."""
    if _open[0]:
        print(file=sys.stderr, flush=True)
        _open[0] = False
