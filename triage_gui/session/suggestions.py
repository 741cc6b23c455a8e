"""*Suggest labels*: the loaded tickets grouped by meaning (:mod:`engine.grouping`) on the engine thread.

The table is read where its owner runs (the loop's thread), and only copied there: the embedded rows, the
confidence and label columns, the list of texts and a view of the embeddings (:func:`engine.grouping.capture`).
Everything else runs on the engine thread, so the window never waits on it: which tickets the labels fit
badly (the nearest-anchor test over every embedded ticket), the embeddings dequantised, the grouping itself
(2.2-3.4 s for 20,000 tickets on this loaded 2-core machine) and every edit of it that runs k-means (a split, more or
fewer groups).

For the tickets the labels in use fit badly, the labels' *anchors* are their examples' and taught tickets'
encoder embeddings: a taught ticket that is loaded has its first-pass embedding in the table; the rest (the
prompt's examples, taught tickets not loaded: tens of short texts) go through the encoder. Both are found on
the engine thread, from the table's texts and embedded rows copied on the loop's thread.
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


def prepare_grouping(thread: WorkerThread) -> None:
    """Import what grouping runs on, on ``thread`` (the loader's, once the model and encoder have loaded), so
    that *Suggest labels* later imports nothing while the window waits (:func:`engine.grouping.prepare`)."""
    from ..engine.grouping import prepare

    thread.submit(prepare)


async def anchors_of(table: TicketTable, thread: WorkerThread, texts: Sequence[str], encoder: Any) -> np.ndarray | None:
    """The encoder embeddings of ``texts`` (the labels' examples and taught tickets): the table's first-pass
    ones where a text is loaded and embedded, the encoder's for the rest (None without an encoder)."""
    if encoder is None or not texts:
        return None
    wanted = set(texts)
    embedded = np.flatnonzero(table.embedded_mask())
    loaded_texts, view = list(table.texts), table.embeddings.view(len(table))

    def find() -> np.ndarray | None:  # on the engine thread: a Python loop over every embedded ticket
        loaded: dict[str, int] = {}
        for row in embedded.tolist():
            text = loaded_texts[row]
            if text in wanted and text not in loaded:
                loaded[text] = row
        found = [view[np.asarray(list(loaded.values()), dtype=np.int64)]] if loaded else []
        rest = sorted(wanted - set(loaded))
        if rest:
            found.append(np.asarray(encoder.encode(rest), dtype=np.float32))
        return np.concatenate(found) if found else None

    return await thread.run(find)


async def suggest_groups(
    table: TicketTable,
    thread: WorkerThread,
    groups: int | None = None,
    poorly_fitted: bool = False,
    anchors: np.ndarray | None = None,
) -> Grouping:
    """The table's tickets grouped; with ``poorly_fitted`` those labelled below ``LOW_CONFIDENCE`` or far
    from every one of ``anchors`` (:func:`engine.grouping.chosen`), each group counting the tickets it
    would take over from each current label. Raises :class:`engine.grouping.NotEmbedded` (one sentence) when
    there is nothing to group yet."""
    from ..engine.grouping import capture, find_groups, gather

    taken = capture(table, poorly_fitted, LOW_CONFIDENCE, anchors)  # copies only, on the loop's thread

    def group() -> Grouping:  # on the engine thread: which tickets, their embeddings, the grouping
        rows, vectors, texts, current, note = gather(taken)
        grouping = find_groups(rows, vectors, texts, groups, 0, current)
        grouping.note = note
        return grouping

    return await thread.run(group)


async def edit_groups(thread: WorkerThread, edit: Callable[..., Grouping], *args: Any) -> Grouping:
    """One edit of a grouping (``grouping.split``, ``grouping.regrouped``…) on the engine thread."""
    return await thread.run(edit, *args)
