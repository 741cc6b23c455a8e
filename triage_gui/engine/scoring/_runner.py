"""Score tickets in micro-batches, optionally with the baseline and the sentence encoder: the one place
that does it.

The command line, the bench and the Ray workers iterate :func:`score_stream`; the window's session runs
:func:`score_micro_batch` on its engine thread. Batching, ordering, the baseline comparison and the
encoder's features therefore behave the same everywhere. The encoder runs in the same micro-batch, once
per ticket: its features do not depend on the prompt, so a new prompt version never asks for them again.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field

import numpy as np

from ...defaults import STREAM_BATCH_SIZE
from ..model import EncoderLike, ScorerLike
from ..table import ScoredBatch, TicketScore, TicketTable, apply_batch


@dataclass
class Scored:
    index: int  # position of the ticket in the caller's list
    cached: TicketScore | None
    baseline: TicketScore | None = None
    embedding: np.ndarray | None = field(default=None, repr=False)  # the encoder's features, float32


@dataclass
class MicroBatch:
    """One micro-batch's results, per ticket where asked: cached score, baseline score, embedding."""

    scores: list[TicketScore | None]
    baseline: list[TicketScore | None]
    embeddings: list[np.ndarray | None]


def score_micro_batch(
    scorer: ScorerLike | None,
    texts: Sequence[str],
    cached: Sequence[bool],
    baseline: Sequence[bool],
    cancel: threading.Event | None = None,
    encoder: EncoderLike | None = None,
    embed: Sequence[bool] | None = None,
) -> MicroBatch:
    """The encoder's features of the tickets that need them (one batched forward, ~3 ms a ticket), the
    cached scores of the tickets that need them (one packed forward), then the baseline where asked (one
    full re-encode per ticket, ~0.4 s each, so a cancel is honoured between tickets). Tickets that
    already have a result are not computed again. ``scorer`` may be None when only embeddings are asked."""
    asked = list(embed) if embed is not None and encoder is not None else [False] * len(texts)
    to_embed = [t for t, e in zip(texts, asked) if e]
    vectors = iter(encoder.encode(to_embed) if to_embed and encoder is not None else [])
    embeddings = [next(vectors) if e else None for e in asked]
    wanted = [t for t, c in zip(texts, cached) if c]
    if wanted and scorer is None:
        raise ValueError("scores asked for without a scorer")
    got = iter(scorer.score_batch(wanted) if wanted and scorer is not None else [])
    scores = [next(got) if c else None for c in cached]
    full: list[TicketScore | None] = []
    for text, want in zip(texts, baseline):
        stop = cancel is not None and cancel.is_set()
        full.append(scorer.score_full(text) if want and scorer is not None and not stop else None)
    return MicroBatch(scores, full, embeddings)


def score_fields_batch(
    scorers: Sequence[ScorerLike],
    texts: Sequence[str],
    cached: Sequence[bool],
    baseline: Sequence[bool],
    cancel: threading.Event | None = None,
    encoder: EncoderLike | None = None,
    embed: Sequence[bool] | None = None,
    known: Sequence[Sequence[bool]] | None = None,
) -> list[MicroBatch]:
    """A micro-batch for every field of a prompt with several, each through its own field's scorer (its own
    cached prefix): the first field's with the encoder's features (computed once, for every field), then
    each further field's, the same tickets asked the same, except that a field's cached score is not computed
    where ``known`` (per field, per ticket) says the caller has it (a field whose part of the prompt a Save
    left as it was). Each score's latency is its own field's; a ticket's latency in total is their sum."""

    def asked(field: int) -> Sequence[bool]:
        return cached if known is None else [c and not k for c, k in zip(cached, known[field], strict=True)]

    first = score_micro_batch(scorers[0], texts, asked(0), baseline, cancel, encoder, embed)
    more = (score_micro_batch(s, texts, asked(i), baseline, cancel) for i, s in enumerate(scorers[1:], start=1))
    return [first, *more]


def score_stream(
    scorer: ScorerLike,
    tickets: Iterable[tuple[int, str]],
    batch_size: int = STREAM_BATCH_SIZE,
    baseline: bool = False,
    cancel: threading.Event | None = None,
    ramp: bool = False,
    encoder: EncoderLike | None = None,
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
        every = [True] * len(chunk)
        got = score_micro_batch(scorer, texts, every, [baseline] * len(chunk), cancel, encoder, every)
        if baseline and any(f is None for f in got.baseline):
            return  # cancelled during the baseline
        yield [Scored(i, s, b, e) for (i, _), s, b, e in zip(chunk, got.scores, got.baseline, got.embeddings)]


def as_batch(scored: Sequence[Scored]) -> ScoredBatch:
    """A streamed micro-batch as the table takes it (:func:`engine.table.apply_batch`)."""
    rows = [s.index for s in scored]
    return ScoredBatch(rows, [s.cached for s in scored], [s.baseline for s in scored], [s.embedding for s in scored])


def score_table(
    scorer: ScorerLike,
    table: TicketTable,
    batch_size: int = STREAM_BATCH_SIZE,
    baseline: bool = False,
    encoder: EncoderLike | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> None:
    """Score every pending row of ``table`` in this process, each micro-batch applied as the window's
    session applies its own (``classify`` and ``eval``; the Ray driver applies its actors' the same way)."""
    rows = [int(r) for r in table.pending(0)]
    done = 0
    for batch in score_stream(scorer, ((r, table.texts[r]) for r in rows), batch_size, baseline, encoder=encoder):
        apply_batch(table, as_batch(batch), table.version)
        done += len(batch)
        if progress is not None:
            progress(done, len(rows))
