"""Labelling as an async iteration: micro-batches scored on the engine thread, results on the loop.

The next micro-batch is queued on the engine thread before the current one's results are handed
out, so the engine never waits while the window applies a batch. Cancelling the iterating task drops
the queued batch and stops the one in flight at its next baseline ticket.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass

import numpy as np

from ..engine.results import TicketScore
from ..engine.runner import EncoderLike, ScorerLike, score_micro_batch
from ..engine.table import TicketTable
from .status import RunStatus
from .workers import WorkerThread


@dataclass
class Batch:
    rows: list[int]
    scores: list[TicketScore | None]  # per row, where its score was asked for
    baseline: list[TicketScore | None]  # per row, where the baseline was asked for and finished
    embeddings: list[np.ndarray | None]  # per row, where the encoder's features were asked for


class WorkQueue:
    """The rows a labelling run still has to do, handed out in row order; rows added while it runs are
    picked up (the table is scanned again from where the last scan ended)."""

    def __init__(self, table: TicketTable, baseline: bool = False, embed: bool = False) -> None:
        self.table, self.baseline, self.embed = table, baseline, embed
        self._rows = np.zeros(0, dtype=np.int64)
        self._pos = 0
        self._scanned = 0

    def also_embed(self) -> None:
        """The encoder arrived during the run: scan every row again for missing embeddings."""
        self.embed, self._rows, self._pos, self._scanned = True, np.zeros(0, dtype=np.int64), 0, 0

    def take(self, n: int) -> list[tuple[int, str, bool, bool, bool]]:
        """Up to n (row, text, needs score, needs baseline, needs embedding)."""
        table = self.table
        out: list[tuple[int, str, bool, bool, bool]] = []
        while len(out) < n:
            if self._pos >= len(self._rows):
                if self._scanned >= len(table):
                    break
                self._rows, self._pos = table.pending(self._scanned, self.baseline, self.embed), 0
                self._scanned = len(table)
                continue
            i = int(self._rows[self._pos])
            self._pos += 1
            need_score = not table.scored(i)
            need_base = self.baseline and table.needs_baseline(i)
            need_embed = self.embed and not table.embedded(i)
            if need_score or need_base or need_embed:
                out.append((i, table.texts[i], need_score, need_base, need_embed))
        return out


async def label_stream(
    engine: WorkerThread,
    scorer: ScorerLike,
    take: Callable[[int], list[tuple[int, str, bool, bool, bool]]],
    batch_size: int,
    stop: threading.Event,
    ramp: bool = True,
    encoder: Callable[[], EncoderLike | None] | None = None,
) -> AsyncIterator[Batch]:
    """Yield scored micro-batches until ``take`` has nothing more or ``stop`` is set.

    ``take(n)`` hands out up to n rows still to do as (row, text, needs cached score, needs baseline,
    needs the encoder's features);
    it is called again for each batch, so rows added while labelling runs are picked up. With ``ramp``
    the first batches hold 1, 2, 4... tickets: the first label shows after one ticket's latency.

    ``encoder`` returns the sentence encoder to use for the next batch (None: none yet).

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
        model = encoder() if encoder is not None else None  # read per batch: it may arrive during the run
        return rows, engine.submit(score_micro_batch, scorer, texts, cached, base, stop, model, embed)

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


class Throughput:
    """Tickets a second, for the time left. A run's first micro-batches are small (1, 2, 4, … tickets:
    the first label comes fast) and slow per ticket, so the rate of a run's first seconds said "23 min
    left" for a re-label of 200 tickets that took 2.5 minutes. Until a run has done :data:`WARM` rows,
    the rate measured over the last run that did is used; with none yet, no time is promised."""

    WARM = 64

    def __init__(self) -> None:
        self.started, self.done = 0.0, 0
        self.measured: float | None = None  # tickets/s over the last run of at least WARM rows

    def start(self) -> None:
        self.started, self.done = time.perf_counter(), 0

    def add(self, rows: int) -> None:
        self.done += rows

    def current(self) -> float:
        elapsed = time.perf_counter() - self.started
        return self.done / elapsed if elapsed > 0 and self.done else 0.0

    def finish(self) -> None:
        if self.done >= self.WARM and self.current() > 0:
            self.measured = self.current()

    def rate(self) -> float | None:
        """The rate to promise a time left with: this run's once warm, else the last measured, else none."""
        if self.done >= self.WARM:
            return self.current() or None
        return self.measured


def run_status(table: TicketTable, state: str, baseline: bool, throughput: Throughput) -> RunStatus:
    """The run's progress now: labelled of labellable, baseline done, and while running this run's rate
    and the time left (from :meth:`Throughput.rate`; none while a first run warms up)."""
    labelled, total = table.count_scored(), table.count_scorable()
    base_done = len(table.baseline) if baseline else 0
    rate, eta = 0.0, None
    if state == "running":
        rate = throughput.current()
        promised = throughput.rate()
        left = total - labelled + (total - base_done if baseline else 0)
        eta = left / promised if promised else None
    return RunStatus(state, labelled, total, base_done, total if baseline else 0, rate, eta)
