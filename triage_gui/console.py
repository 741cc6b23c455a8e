"""Progress on the terminal for the command line's long jobs (one process or a cluster)."""

from __future__ import annotations

import sys
import time


def progress_line(done: int, total: int, started: float, extra: str = "") -> None:
    """``\\r{done}/{total} tickets, {rate}/s`` on stderr, rewritten in place."""
    rate = done / max(1e-9, time.perf_counter() - started)
    print(f"\r{done}/{total} tickets, {rate:.1f}/s{extra}", end="", file=sys.stderr, flush=True)
