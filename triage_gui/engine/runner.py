"""Score tickets in micro-batches, optionally with the baseline: the one place that does it.

The command line and the bench iterate :func:`score_stream`; the window's session runs
:func:`score_micro_batch` on its engine thread. Batching, ordering and the baseline comparison
therefore behave the same everywhere.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Protocol

from ..defaults import STREAM_BATCH_SIZE
from .results import TicketScore


class ScorerLike(Protocol):
    """What scoring needs of a scorer: :class:`scorer.Scorer`, or a fake in the session tests."""

    labels: list[str]

    def score_batch(self, texts: list[str]) -> list[TicketScore]: ...

    def score_full(self, text: str) -> TicketScore: ...


@dataclass
class Scored:
    index: int  # position of the ticket in the caller's list
    cached: TicketScore | None
    baseline: TicketScore | None = None


def score_micro_batch(
    scorer: ScorerLike,
    texts: Sequence[str],
    cached: Sequence[bool],
    baseline: Sequence[bool],
    cancel: threading.Event | None = None,
) -> tuple[list[TicketScore | None], list[TicketScore | None]]:
    """The cached scores of the tickets that need them (one packed forward), then the baseline where
    asked (one full re-encode per ticket, ~0.4 s each, so a cancel is honoured between tickets).
    Tickets that already have their score are not scored again."""
    wanted = [t for t, c in zip(texts, cached) if c]
    got = iter(scorer.score_batch(wanted) if wanted else [])
    scores = [next(got) if c else None for c in cached]
    full: list[TicketScore | None] = []
    for text, asked in zip(texts, baseline):
        stop = cancel is not None and cancel.is_set()
        full.append(scorer.score_full(text) if asked and not stop else None)
    return scores, full


def score_stream(
    scorer: ScorerLike,
    tickets: Iterable[tuple[int, str]],
    batch_size: int = STREAM_BATCH_SIZE,
    baseline: bool = False,
    cancel: threading.Event | None = None,
    ramp: bool = False,
) -> Iterator[list[Scored]]:
    """Yield scored micro-batches of up to ``batch_size`` tickets, in input order.

    The scorer packs each micro-batch into rows without padding, so tickets need no sorting by
    length; results arrive in file order. With ``ramp`` the first micro-batches hold 1, 2, 4...
    tickets, so the first label shows after one ticket's latency, not a whole batch's.
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
        texts = [text for _, text in chunk]
        scores, full = score_micro_batch(scorer, texts, [True] * len(chunk), [baseline] * len(chunk), cancel)
        if baseline and any(f is None for f in full):
            return  # cancelled during the baseline
        yield [Scored(i, s, b) for (i, _), s, b in zip(chunk, scores, full)]
