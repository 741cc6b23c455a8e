"""The table of a field after the first (a prompt with several fields: a queue and a priority): the same rows
as the ticket table, the same sentence-encoder embeddings (the blocks shared, never copied or computed
again), and its own labels, taught tickets and learned head.

Made on the owner's thread as a snapshot of the rows embedded so far, then labelled elsewhere (the first pass
of that field, :meth:`engine.learning.Teacher.fit_table`, the one ``classify --fast`` runs): the ticket table
goes on growing meanwhile, and the snapshot reads only its own first ``n`` rows, whose embeddings never move
(a new encoder clears the ticket table's store by replacing its block lists, which the snapshot keeps).
"""

from __future__ import annotations

import numpy as np

from ._features import FeatureStore
from ._table import TicketTable


def shared_store(store: FeatureStore, rows: int) -> FeatureStore:
    """A store reading the first ``rows`` rows of ``store`` from the same blocks (no copy)."""
    out = FeatureStore()
    out.key, out.dim = store.key, store.dim
    out._values, out._scales = list(store._values), list(store._scales)
    out._rows = min(rows, store._rows)
    return out


def field_table(table: TicketTable, labels: list[str], bias: list[float] | None = None) -> TicketTable:
    """A table of the same rows as ``table`` (its texts, values, problems, languages and embeddings, all
    rows it has now) for a field with these ``labels`` (and its prompt's calibration ``bias``, given a
    language model: what ``classify`` starts that field's table with): nothing labelled, nothing taught yet."""
    out = TicketTable()
    n = len(table)
    out.columns, out._column_index = list(table.columns), dict(table._column_index)
    out.values, out.texts, out.sources = table.values[:n], table.texts[:n], table.sources[:n]
    out.problems = dict(table.problems)
    out._n = n
    for array in out._arrays():
        array.ensure(n)
    out._problem.data[:n] = table._problem.data[:n]
    out._language.data[:n] = table._language.data[:n]
    out._embedded.data[:n] = table._embedded.data[:n]
    out.embeddings = shared_store(table.embeddings, n)
    out.embeddings.ensure(n)
    out.features.ensure(n)
    out.start_version(0, list(labels), list(bias or []))
    return out


def embedded_count(table: TicketTable) -> int:
    return int(np.count_nonzero(table.embedded_mask()))
