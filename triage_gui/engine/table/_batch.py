"""A scored micro-batch and the one way it goes into the table: the window's session, ``classify`` and the
Ray driver each wrote this loop themselves (three copies, the order of the three stores differing).

Per row, whatever of the three results the batch carries: the encoder's features, the prompt's scores
(stored only if they are from the table's current prompt version) and the baseline's full re-encode.
:func:`apply_batch` says which rows took which, so the session can tell the teaching what changed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from ._results import TicketScore
from ._table import TicketTable


@dataclass
class ScoredBatch:
    rows: list[int]
    scores: Sequence[TicketScore | None]  # per row, where its score was asked for
    baseline: Sequence[TicketScore | None]  # per row, where the baseline was asked for and finished
    embeddings: Sequence[np.ndarray | None]  # per row, where the encoder's features were asked for
    # A prompt with several fields: each further field's (scores, baseline) for the same rows, through its own
    # cached prefix (stored by the session's further fields, not in this table).
    more: Sequence[tuple[Sequence[TicketScore | None], Sequence[TicketScore | None]]] = ()

    @classmethod
    def of_rows(
        cls,
        rows: Sequence[int],
        scores: Sequence[TicketScore | None] | None = None,
        baseline: Sequence[TicketScore | None] | None = None,
        embeddings: Sequence[np.ndarray | None] | np.ndarray | None = None,
    ) -> ScoredBatch:
        """A batch with what was computed; a result not computed for any row given as None."""
        none: list[None] = [None] * len(rows)
        vectors = none if embeddings is None else list(embeddings)
        return cls(
            list(rows), scores if scores is not None else none, baseline if baseline is not None else none, vectors
        )


@dataclass
class Applied:
    """The rows that took each kind of result."""

    embedded: list[int] = field(default_factory=list)
    scored: list[int] = field(default_factory=list)  # empty when the scores were from another prompt version
    based: list[int] = field(default_factory=list)


def apply_batch(table: TicketTable, batch: ScoredBatch, version: int) -> Applied:
    """Store a batch's results: embeddings first (kept across prompt versions), then the prompt's scores
    and the baseline, both only if ``version`` is still the table's."""
    done = Applied()
    embedded = [(r, e) for r, e in zip(batch.rows, batch.embeddings) if e is not None]
    if embedded:
        table.apply_embeddings([r for r, _ in embedded], np.stack([e for _, e in embedded]))
        done.embedded = [r for r, _ in embedded]
    scored = [(r, s) for r, s in zip(batch.rows, batch.scores) if s is not None]
    if scored and table.apply([r for r, _ in scored], [s for _, s in scored], version):
        done.scored = [r for r, _ in scored]
    based = [(r, b) for r, b in zip(batch.rows, batch.baseline) if b is not None]
    if based and version == table.version:
        table.apply_baseline([r for r, _ in based], [b for _, b in based], version)
        done.based = [r for r, _ in based]
    return done
