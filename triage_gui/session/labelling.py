"""Labelling as an async iteration: micro-batches scored on the engine thread, results on the loop.

The next micro-batch is queued on the engine thread before the current one's results are handed
out, so the engine never waits while the window applies a batch. Cancelling the iterating task drops
the queued batch and stops the one in flight at its next baseline ticket.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass

import numpy as np

from ..engine.results import TicketScore
from ..engine.runner import EncoderLike, ScorerLike, score_micro_batch
from .workers import WorkerThread


@dataclass
class Batch:
    rows: list[int]
    scores: list[TicketScore | None]  # per row, where its score was asked for
    baseline: list[TicketScore | None]  # per row, where the baseline was asked for and finished
    embeddings: list[np.ndarray | None]  # per row, where the encoder's features were asked for


async def label_stream(
    engine: WorkerThread,
    scorer: ScorerLike,
    take: Callable[[int], list[tuple[int, str, bool, bool, bool]]],
    batch_size: int,
    stop: threading.Event,
    ramp: bool = True,
    encoder: EncoderLike | None = None,
) -> AsyncIterator[Batch]:
    """Yield scored micro-batches until ``take`` has nothing more or ``stop`` is set.

    ``take(n)`` hands out up to n rows still to do as (row, text, needs cached score, needs baseline,
    needs the encoder's features);
    it is called again for each batch, so rows added while labelling runs are picked up. With ``ramp``
    the first batches hold 1, 2, 4... tickets: the first label shows after one ticket's latency.

    ``stop`` is a graceful stop (the user's Stop): the batch on the engine thread finishes and is
    yielded (its baseline loop ends early), nothing new starts. Cancelling the iterating task instead
    drops the batch in flight (a new prompt made it worthless).
    """
    size = 1 if ramp else batch_size

    def queue() -> tuple[list[int], asyncio.Future] | None:
        nonlocal size
        if stop.is_set():
            return None
        work = take(size)
        size = min(batch_size, size * 2)
        if not work:
            return None
        rows = [w[0] for w in work]
        texts = [w[1] for w in work]
        cached, base, embed = [w[2] for w in work], [w[3] for w in work], [w[4] for w in work]
        return rows, engine.submit(score_micro_batch, scorer, texts, cached, base, stop, encoder, embed)

    pending = queue()
    try:
        while pending is not None:
            rows, future = pending
            done = await future
            pending = queue()  # keep the engine busy while the loop applies this batch
            yield Batch(rows, done.scores, done.baseline, done.embeddings)
    finally:
        if pending is not None:
            pending[1].cancel()
