"""Labelling as an async iteration: micro-batches scored on the engine thread, results on the loop.

The next micro-batch is queued on the engine thread before the current one's results are handed
out, so the engine never waits while the window applies a batch. Cancelling the iterating task drops
the queued batch and stops the one in flight at its next baseline ticket.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Protocol

import numpy as np

from ..engine.learning import first_block
from ..engine.model import EncoderLike, ScorerLike
from ..engine.scoring import score_fields_batch
from ..engine.table import ScoredBatch, TicketScore, TicketTable
from .status import RunStatus
from .workers import WorkerThread


class FieldsToRead(Protocol):
    """The further fields' rows still to read (:class:`fields.FieldLabels`), where the first field's are read."""

    def unread(self, start: int = 0) -> np.ndarray: ...

    def needs(self, row: int) -> bool: ...


class WorkQueue:
    """The rows a labelling run still has to do; rows added while it runs are picked up (the table is scanned
    again from where the last scan ended). The language model reads the first pass's least sure rows first
    (lowest first-pass confidence; rows without a first-pass label after, in file order): its reading can
    change those most, so a lead who stops early keeps most of what it is worth. What is left is re-sorted
    whenever the first pass relabels rows (a refit, new embeddings). The first pass comes first:
    while any row lacks the encoder's features, :meth:`take` hands out an embedding block (rows aligned as
    :mod:`engine.learning` says), so every loaded ticket has a learned label before the language model
    reads the next one."""

    def __init__(
        self, table: TicketTable, baseline: bool = False, embed: bool = False, fields: FieldsToRead | None = None
    ) -> None:
        self.table, self.baseline, self.embed = table, baseline, embed
        self.fields = fields  # a prompt with several fields: rows the first field has and another has not read
        self._rows = np.zeros(0, dtype=np.int64)
        self._pos = 0
        self._scanned = 0
        self._embed_from = 0  # rows below this were handed out for embedding (or need none)
        self._stamp = -1  # the table's first-pass stamp the rows left were sorted under

    def also_embed(self) -> None:
        """The encoder arrived during the run: every row without embeddings goes through the first pass."""
        self.embed, self._embed_from = True, 0

    def first_pass_left(self) -> bool:
        return self.embed and bool(len(self.table.unembedded(self._embed_from)))

    def take(self, n: int, llm: bool = True) -> list[tuple[int, str, bool, bool, bool]]:
        """Up to n (row, text, needs score, needs baseline, needs embedding): an embedding block while the
        first pass has rows to do, else language-model work (none when ``llm`` is False: after a Stop)."""
        table = self.table
        if self.embed:
            block = first_block(table.unembedded(self._embed_from))
            if len(block):
                self._embed_from = int(block[-1]) + 1
                return [(int(r), table.texts[int(r)], False, False, True) for r in block]
            self._embed_from = len(table)
        out: list[tuple[int, str, bool, bool, bool]] = []
        while llm and len(out) < n:
            if self._pos >= len(self._rows):
                if self._scanned >= len(table):
                    break
                self._rows, self._pos = table.pending(self._scanned, self.baseline), 0
                if self.fields is not None:
                    self._rows = np.union1d(self._rows, self.fields.unread(self._scanned))
                self._scanned, self._stamp = len(table), -1
                continue
            if self._stamp != table.first_stamp:
                self._rows, self._pos = least_sure_first(table, self._rows[self._pos :]), 0
                self._stamp = table.first_stamp
            i = int(self._rows[self._pos])
            self._pos += 1
            need_score = not table.scored(i) or (self.fields is not None and self.fields.needs(i))
            need_base = self.baseline and table.needs_baseline(i)
            if need_score or need_base:
                out.append((i, table.texts[i], need_score, need_base, False))
        return out


def least_sure_first(table: TicketTable, rows: np.ndarray) -> np.ndarray:
    """These rows, the first pass's least confident first; rows without a first-pass label last, in file
    order (a stable sort keeps file order among equals)."""
    confidence = table.first_pass_confidence()[rows]
    return rows[np.argsort(np.where(np.isnan(confidence), np.inf, confidence), kind="stable")]


async def label_stream(
    engine: WorkerThread,
    scorer: ScorerLike,
    take: Callable[[int, bool], list[tuple[int, str, bool, bool, bool]]],
    batch_size: int,
    stop: threading.Event,
    ramp: bool = True,
    encoder: Callable[[], EncoderLike | None] | None = None,
    more: Sequence[ScorerLike] = (),
    kept: Callable[[list[int]], list[list[TicketScore | None]]] | None = None,
    reading: Callable[[int], None] | None = None,
    fields_read: Callable[[tuple[int, ...]], None] | None = None,
) -> AsyncIterator[ScoredBatch]:
    """Yield scored micro-batches until ``take`` has nothing more or ``stop`` is set.

    ``take(n, llm)`` hands out up to n rows still to do as (row, text, needs cached score, needs baseline,
    needs the encoder's features), language-model work only while ``llm``;
    it is called again for each batch, so rows added while labelling runs are picked up. With ``ramp``
    the first language-model batches hold 1, 2, 4... tickets: the first refined label shows after one
    ticket's latency.

    ``encoder`` returns the sentence encoder to use for the next batch (None: none yet).

    ``stop`` is a graceful stop (the user's Stop): the batch on the engine thread finishes and is
    yielded (its baseline loop ends early), and no language-model batch starts; the first pass goes on
    (it is cheap, and it is what every row's label waits for). Cancelling the iterating task instead
    drops the batch in flight (a new prompt made it worthless).

    ``more``: a prompt with several fields, the scorers of its fields after the first; every ticket the
    first field's scorer reads, each of them reads too, in the same micro-batch (one Stop, one count of
    what is left), through its own cached prefix; their results ride in :attr:`ScoredBatch.more`. ``kept``:
    each field's score already kept for these rows (the first field's, then each further one's; None: to be
    read), called on the loop's thread as rows are taken: a field kept is not read again, its score rides
    in the batch as if read (a Save that changed only the priority reads only the priority).

    ``reading(n)``: told, each time a batch is handed to the engine thread, how many tickets the language
    model reads in it (0: an embedding block, or nothing queued): after a Stop, the tickets still to land.
    ``fields_read(fields)``: told, for each batch the language model reads, which fields it reads (indices: a
    field whose every score in it is kept is not read).
    """
    size = 1 if ramp else batch_size

    def queue() -> tuple[list[int], asyncio.Future, list[list[TicketScore | None]] | None] | None:
        nonlocal size
        work = take(size, not stop.is_set())
        if reading is not None:
            reading(sum(w[2] for w in work))
        if not work:
            return None
        if any(w[2] or w[3] for w in work):  # the ramp is the language model's: embedding blocks are fixed
            size = min(batch_size, size * 2)
        rows = [w[0] for w in work]
        texts = [w[1] for w in work]
        cached, base, embed = [w[2] for w in work], [w[3] for w in work], [w[4] for w in work]
        model = encoder() if encoder is not None else None  # read per batch: it may arrive during the run
        known = None  # each field's kept score of the rows whose score is asked for
        if kept is not None and any(cached):
            known = [[k if c else None for k, c in zip(f, cached, strict=True)] for f in kept(rows)]
        flags = None if known is None else [[k is not None for k in f] for f in known]
        if fields_read is not None and any(cached):  # a field is read where a row asked for has no kept score
            read = [flags is None or any(c and not f for c, f in zip(cached, flags[i])) for i in range(1 + len(more))]
            fields_read(tuple(i for i, r in enumerate(read) if r))
        future = engine.submit(score_fields_batch, [scorer, *more], texts, cached, base, stop, model, embed, flags)
        return rows, future, known

    pending = queue()
    try:
        while pending is not None:
            rows, future, known = pending
            first, *rest = await future
            pending = queue()  # keep the engine busy while the loop applies this batch
            parts = [(first.scores, first.baseline), *((r.scores, r.baseline) for r in rest)]
            if known is not None:  # what was kept, where it was not read
                parts = [([k if s is None else s for s, k in zip(scores, f, strict=True)], base)
                         for (scores, base), f in zip(parts, known, strict=True)]  # fmt: skip
            (scores, baseline), *fields = parts
            yield ScoredBatch(rows, scores, baseline, first.embeddings, fields)
    finally:
        if reading is not None:
            reading(0)
        if pending is not None:
            pending[1].cancel()


class Throughput:
    """Language-model tickets a second, for the time left. A run's first micro-batches are small (1, 2,
    4, … tickets: the first label comes fast) and slow per ticket, and the first pass runs before them, so
    the rate is measured from the first scored batch on, and no time left is promised until this run has
    scored :data:`WARM` tickets of its own (a rate carried over from the last run said 81 s for a re-label
    that took over 3 minutes)."""

    WARM = 64

    def __init__(self) -> None:
        self.started: float | None = None  # when the first scored batch of this run landed
        self.done = 0  # tickets scored in this run
        self._first = 0  # the first batch's tickets (scored before the clock started)

    def start(self) -> None:
        self.started, self.done, self._first = None, 0, 0

    def add(self, rows: int) -> None:
        if not rows:
            return
        if self.started is None:
            self.started, self._first = time.perf_counter(), rows
        self.done += rows

    def current(self) -> float:
        if self.started is None:
            return 0.0
        elapsed = time.perf_counter() - self.started
        return (self.done - self._first) / elapsed if elapsed > 0 and self.done > self._first else 0.0

    def rate(self) -> float | None:
        """The rate to promise a time left with: this run's, once it has scored WARM tickets; else none."""
        if self.done >= self.WARM:
            return self.current() or None
        return None


def run_status(
    table: TicketTable,
    state: str,
    baseline: bool,
    throughput: Throughput,
    finishing: int = 0,
    embedding: bool = False,
    fields_read: tuple[int, ...] = (),
    unread: int = 0,
) -> RunStatus:
    """The run's progress now: rows with a usable label (first pass or better), scored by the language model
    of labellable, baseline done, and while running this run's rate and the time left (from
    :meth:`Throughput.rate`; none while the run warms up); ``finishing``: stopped, the tickets the language
    model still reads in the batch in flight (:attr:`RunStatus.finishing`); ``embedding``: a sentence encoder is
    in use, and the rows it has still to embed are counted (:attr:`RunStatus.first_pass_left`); ``fields_read``: the
    fields the language model reads in this run (:attr:`RunStatus.fields_read`); ``unread``: rows of those the first
    field has read that a further field has still to read (:meth:`fields.FieldLabels.unread`), not counted read."""
    labelled, total = table.count_scored() - unread, table.count_scorable()
    base_done = len(table.baseline) if baseline else 0
    rate, eta = 0.0, None
    if state == "running":
        rate = throughput.current()
        promised = throughput.rate()
        left = total - labelled + (total - base_done if baseline else 0)
        eta = left / promised if promised else None
    finishing = finishing if state == "stopped" else 0
    current = table.count_current()
    left = len(table.unembedded()) if embedding and state == "running" else 0
    based = total if baseline else 0
    return RunStatus(state, labelled, total, base_done, based, rate, eta, current, finishing, left, fields_read)
