"""*Suggest labels*: the loaded tickets grouped by meaning (:mod:`engine.grouping`) on the engine thread.

The table is read where its owner runs (the loop's thread: the rows, their first-pass embeddings, texts and
current labels: 40 ms for 20,000 tickets); the grouping itself (3.6 s for 20,000 tickets on this 2-core
machine) and every edit of it that runs k-means (a split, more or fewer groups) run on the engine thread, so
the window never waits on them.

For the tickets the labels in use fit badly, the labels' *anchors* are their examples' and taught tickets'
encoder embeddings: a taught ticket that is loaded has its first-pass embedding in the table; the rest (the
prompt's examples, taught tickets not loaded: tens of short texts) go through the encoder on the engine thread.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ..defaults import LOW_CONFIDENCE

if TYPE_CHECKING:
    from ..engine.grouping import Grouping
    from ..engine.table import TicketTable
    from .workers import WorkerThread


async def anchors_of(
    table: TicketTable, thread: WorkerThread, texts: Sequence[str], encoder: Any
) -> np.ndarray | None:
    """The encoder embeddings of ``texts`` (the labels' examples and taught tickets): the table's first-pass
    ones where a text is loaded and embedded, the encoder's for the rest (None without an encoder)."""
    if encoder is None or not texts:
        return None
    wanted = set(texts)
    embedded = table.embedded_mask()
    loaded: dict[str, int] = {}
    for row in np.flatnonzero(embedded).tolist():
        text = table.texts[row]
        if text in wanted and text not in loaded:
            loaded[text] = row
    found = [table.embeddings.get(np.asarray(list(loaded.values()), dtype=np.int64))] if loaded else []
    rest = sorted(wanted - set(loaded))
    if rest:
        found.append(np.asarray(await thread.run(encoder.encode, rest), dtype=np.float32))
    return np.concatenate(found) if found else None


async def suggest_groups(
    table: TicketTable,
    thread: WorkerThread,
    groups: int | None = None,
    poorly_fitted: bool = False,
    anchors: np.ndarray | None = None,
) -> Grouping:
    """The table's tickets grouped; with ``poorly_fitted`` those labelled below ``LOW_CONFIDENCE`` or far
    from every one of ``anchors`` (:func:`engine.grouping.grouped_rows`), each group counting the tickets it
    would take over from each current label. Raises :class:`engine.grouping.NotEmbedded` (one sentence) when
    there is nothing to group yet."""
    from ..engine.grouping import find_groups, snapshot

    rows, view, texts, current, note = snapshot(table, poorly_fitted, LOW_CONFIDENCE, anchors)

    def group() -> Grouping:  # on the engine thread, the embeddings dequantised there too
        return find_groups(rows, view[rows], texts, groups, 0, current)

    grouping = await thread.run(group)
    grouping.note = note
    return grouping


async def edit_groups(thread: WorkerThread, edit: Callable[..., Grouping], *args: Any) -> Grouping:
    """One edit of a grouping (``grouping.split``, ``grouping.regrouped``…) on the engine thread."""
    return await thread.run(edit, *args)
