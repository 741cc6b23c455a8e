"""Stream scores for many tickets in micro-batches, optionally with the baseline; cancellable.

The CLI and the window's worker both use this, so batching, ordering and the baseline comparison
behave the same everywhere.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from .results import TicketScore
from .scorer import Scorer


@dataclass
class Scored:
    index: int  # position of the ticket in the caller's list
    cached: TicketScore
    baseline: TicketScore | None = None


def score_stream(
    scorer: Scorer,
    tickets: Iterable[tuple[int, str]],
    batch_size: int = 16,
    baseline: bool = False,
    cancel: threading.Event | None = None,
    ramp: bool = False,
) -> Iterator[list[Scored]]:
    """Yield scored micro-batches of up to ``batch_size`` tickets, in input order.

    The scorer packs each micro-batch into rows without padding, so tickets need no sorting by
    length; results arrive in file order. With ``ramp`` the first micro-batches hold 1, 2, 4...
    tickets, so a window shows its first label after one ticket's latency, not a whole batch's.
    """

    def cancelled() -> bool:
        return cancel is not None and cancel.is_set()

    iterator = iter(tickets)
    size = 1 if ramp else batch_size
    while not cancelled():
        chunk = list(itertools.islice(iterator, size))
        size = min(batch_size, 2 * size)
        if not chunk:
            return
        scores = scorer.score_batch([text for _, text in chunk])
        out = [Scored(i, s) for (i, _), s in zip(chunk, scores)]
        if baseline:
            for item, (_, text) in zip(out, chunk):
                if cancelled():
                    return
                item.baseline = scorer.score_full(text)
        yield out
