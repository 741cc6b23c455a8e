"""Stream scores for many tickets in micro-batches, optionally with the baseline; cancellable.

The CLI and the window's worker both use this, so batching, ordering and the baseline comparison
behave the same everywhere.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from .scorer import Scorer, TicketScore


@dataclass
class Scored:
    index: int  # position of the ticket in the caller's list
    cached: TicketScore
    baseline: TicketScore | None = None

    @property
    def agree(self) -> bool | None:
        return None if self.baseline is None else self.baseline.label == self.cached.label


def score_stream(
    scorer: Scorer,
    tickets: Iterable[tuple[int, str]],
    batch_size: int = 16,
    baseline: bool = False,
    cancel: threading.Event | None = None,
) -> Iterator[list[Scored]]:
    """Yield scored micro-batches; each holds up to ``batch_size`` tickets of similar length.

    Tickets are sorted by length inside a small look-ahead window so padding stays low while results
    still arrive roughly in file order.
    """
    window: list[tuple[int, str]] = []
    lookahead = batch_size * 4

    def flush(items: list[tuple[int, str]]) -> Iterator[list[Scored]]:
        items.sort(key=lambda item: len(item[1]))
        for start in range(0, len(items), batch_size):
            if cancel is not None and cancel.is_set():
                return
            chunk = items[start : start + batch_size]
            scores = scorer.score_batch([text for _, text in chunk])
            out = [Scored(i, s) for (i, _), s in zip(chunk, scores)]
            if baseline:
                for item, (_, text) in zip(out, chunk):
                    if cancel is not None and cancel.is_set():
                        return
                    item.baseline = scorer.score_full(text)
            yield out

    for item in tickets:
        if cancel is not None and cancel.is_set():
            return
        window.append(item)
        if len(window) >= lookahead:
            yield from flush(window)
            window = []
    if window:
        yield from flush(window)
